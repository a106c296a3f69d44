/**
 * The real MCP servers of the development catalog (bench/data/real-mcp-catalog): which npm
 * package each comes from, how it is started, and why it was picked. Installed only in
 * tools/catalog/node_modules (never a runtime dependency of plaited-agent).
 */
export interface CatalogServer {
  /** The short server name used as the tool-id namespace (`server__tool`). */
  id: string;
  package: string;
  /** Arguments after the package's bin; `{tmp}` is a scratch directory. */
  args?: string[];
  env?: Record<string, string>;
  why: string;
}

/**
 * Dummy credentials every server gets: servers that need an API key usually check for it at
 * start and list their tools without using it. The network is cut off anyway (bwrap
 * --unshare-net), so a server that must reach its API at start fails and is noted as skipped.
 */
export const DUMMY_ENV: Record<string, string> = {
  GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_dummy',
  GITLAB_PERSONAL_ACCESS_TOKEN: 'glpat-dummy',
  GITLAB_API_URL: 'http://127.0.0.1:9/api/v4',
  SLACK_BOT_TOKEN: 'xoxb-dummy',
  SLACK_TEAM_ID: 'T00000000',
  BRAVE_API_KEY: 'dummy',
  GOOGLE_MAPS_API_KEY: 'dummy',
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  AWS_REGION: 'us-east-1',
  EVERART_API_KEY: 'dummy',
  TAVILY_API_KEY: 'tvly-dummy',
  FIRECRAWL_API_KEY: 'fc-dummy',
  EXA_API_KEY: 'dummy',
  AIRTABLE_API_KEY: 'patdummy',
  AMAP_MAPS_API_KEY: 'dummy',
  BAIDU_MAP_API_KEY: 'dummy',
  FIGMA_API_KEY: 'dummy',
  NOTION_TOKEN: 'ntn_dummy',
  OPENAPI_MCP_HEADERS: '{"Authorization":"Bearer ntn_dummy","Notion-Version":"2022-06-28"}',
  MAPBOX_ACCESS_TOKEN: 'pk.dummy',
  LARA_ACCESS_KEY_ID: 'dummy',
  LARA_ACCESS_KEY_SECRET: 'dummy',
  CHANNEL_ACCESS_TOKEN: 'dummy',
  DESTINATION_USER_ID: 'U0000',
  ES_URL: 'http://127.0.0.1:9',
  ES_API_KEY: 'dummy',
  MYSQL_HOST: '127.0.0.1',
  MYSQL_PORT: '9',
  MYSQL_USER: 'dummy',
  MYSQL_PASS: 'dummy',
  MYSQL_DB: 'dummy',
  REDIS_URL: 'redis://127.0.0.1:9',
  MCP_TRANSPORT_TYPE: 'stdio',
  MCP_LOG_LEVEL: 'error',
};

export const CATALOG_SERVERS: CatalogServer[] = [
  { id: 'filesystem', package: '@modelcontextprotocol/server-filesystem', args: ['{tmp}'], why: 'reference server: file read/write/search, the most installed MCP server' },
  { id: 'memory', package: '@modelcontextprotocol/server-memory', why: 'reference server: knowledge-graph memory (entities, relations, observations)' },
  { id: 'everything', package: '@modelcontextprotocol/server-everything', args: ['stdio'], why: 'reference test server: tools, resources and prompts of every kind, with generic names (echo, add)' },
  { id: 'sequential-thinking', package: '@modelcontextprotocol/server-sequential-thinking', why: 'reference server: a single reasoning tool with a long description' },
  { id: 'puppeteer', package: '@modelcontextprotocol/server-puppeteer', why: 'archived reference server: browser automation (overlaps playwright, browser tools)' },
  { id: 'playwright', package: '@playwright/mcp', why: 'official Microsoft browser automation: many near-duplicates of puppeteer' },
  { id: 'slack', package: '@modelcontextprotocol/server-slack', why: 'archived reference server: team chat' },
  { id: 'github', package: '@modelcontextprotocol/server-github', why: 'archived reference server: repos, issues, PRs (overlaps gitlab, git)' },
  { id: 'gitlab', package: '@modelcontextprotocol/server-gitlab', why: 'archived reference server: near-duplicates of github on another forge' },
  { id: 'git', package: '@cyanheads/git-mcp-server', why: 'community local git server: commit/branch/diff tools, overlaps github' },
  { id: 'brave-search', package: '@modelcontextprotocol/server-brave-search', why: 'archived reference server: web and local search' },
  { id: 'tavily', package: 'tavily-mcp', why: 'vendor web search/extract/crawl: overlaps brave, exa, firecrawl' },
  { id: 'exa', package: 'exa-mcp-server', why: 'vendor neural web search: overlaps tavily/brave' },
  { id: 'firecrawl', package: 'firecrawl-mcp', why: 'vendor scraping/crawling: overlaps fetch and tavily extract' },
  { id: 'fetch', package: '@kazuph/mcp-fetch', why: 'community fetch-a-URL-as-markdown server' },
  { id: 'webresearch', package: '@mzxrai/mcp-webresearch', why: 'community Google search + page visit + screenshot' },
  { id: 'google-maps', package: '@modelcontextprotocol/server-google-maps', why: 'archived reference server: geocoding, places, directions' },
  { id: 'amap', package: '@amap/amap-maps-mcp-server', why: 'AMap (Gaode) maps: Chinese maps vendor, descriptions partly in Chinese; overlaps google-maps' },
  { id: 'baidu-map', package: '@baidumap/mcp-server-baidu-map', why: 'Baidu maps: a third maps vendor, Chinese text' },
  { id: 'mapbox', package: '@mapbox/mcp-server', why: 'Mapbox maps: a fourth maps vendor (static maps, isochrones)' },
  { id: 'postgres', package: '@modelcontextprotocol/server-postgres', args: ['postgresql://127.0.0.1:9/dummy'], why: 'archived reference server: read-only SQL' },
  { id: 'sqlite', package: 'mcp-server-sqlite-npx', args: ['{tmp}/catalog.db'], why: 'community port of the reference sqlite server: SQL + business insights memo' },
  { id: 'mysql', package: '@benborla29/mcp-server-mysql', why: 'community MySQL server: another SQL near-duplicate' },
  { id: 'redis', package: '@modelcontextprotocol/server-redis', why: 'archived reference server: key-value store' },
  { id: 'mongodb', package: 'mongodb-mcp-server', why: 'official MongoDB server: document DB + Atlas admin, many tools' },
  { id: 'elasticsearch', package: '@elastic/mcp-server-elasticsearch', why: 'official Elastic server: search-index queries' },
  { id: 'airtable', package: 'airtable-mcp-server', why: 'community Airtable: spreadsheet-like records' },
  { id: 'excel', package: '@negokaz/excel-mcp-server', why: 'office documents: read/write Excel sheets' },
  { id: 'notion', package: '@notionhq/notion-mcp-server', why: 'official Notion: pages, databases, comments (OpenAPI-generated names)' },
  { id: 'gdrive', package: '@modelcontextprotocol/server-gdrive', why: 'archived reference server: Google Drive search/read' },
  { id: 'chart', package: '@antv/mcp-server-chart', why: 'AntV charts: ~25 chart-generation tools that differ by one word' },
  { id: 'mermaid', package: 'mcp-mermaid', why: 'diagram rendering from Mermaid text (overlaps chart)' },
  { id: 'everart', package: '@modelcontextprotocol/server-everart', why: 'archived reference server: AI image generation' },
  { id: 'aws-kb', package: '@modelcontextprotocol/server-aws-kb-retrieval', why: 'archived reference server: RAG retrieval from a knowledge base' },
  { id: 'desktop-commander', package: '@wonderwhy-er/desktop-commander', why: 'popular community shell + file editing: overlaps filesystem' },
  { id: 'kubernetes', package: 'mcp-server-kubernetes', why: 'community Kubernetes ops: kubectl-like tools' },
  { id: 'stripe', package: '@stripe/mcp', args: ['--tools=all', '--api-key=sk_test_dummy'], why: 'official Stripe: payments, invoices, customers' },
  { id: 'airbnb', package: '@openbnb/mcp-server-airbnb', args: ['--ignore-robots-txt'], why: 'community travel listings search' },
  { id: 'youtube-transcript', package: '@kimtaeyoon83/mcp-server-youtube-transcript', why: 'community video transcript fetcher' },
  { id: 'figma', package: 'figma-developer-mcp', args: ['--stdio'], why: 'community Figma design data + image download' },
  { id: 'lara', package: '@translated/lara-mcp', why: 'vendor translation service' },
  { id: 'taskmanager', package: '@kazuph/mcp-taskmanager', why: 'community task queue/planning server' },
  { id: 'context7', package: '@upstash/context7-mcp', why: 'popular library documentation lookup' },
  { id: 'line', package: '@line/line-bot-mcp-server', why: 'LINE messaging bot: another chat vendor (overlaps slack)' },
];
