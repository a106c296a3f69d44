/**
 * The servers of the wide development catalog (bench/data/real-mcp-catalog-wide): the first
 * catalog's servers (bench/real-mcp-catalog-servers.ts, kept as recorded there) plus these,
 * picked to look like a real user's setup of dozens of servers: office/PDF, charts, databases,
 * devops, productivity, mail/calendar, browsers, Chinese-language servers, and many tools that
 * nearly duplicate another server's. Installed only in tools/catalog/wide/node_modules.
 */
import type { CatalogServer } from './real-mcp-catalog-servers.js';

export const WIDE_CATALOG_SERVERS: CatalogServer[] = [
  { id: 'pdf-reader', package: '@sylphlab/pdf-reader-mcp', why: 'PDF text/metadata/page extraction: the reading side of PDF tasks' },
  { id: 'echarts', package: 'mcp-echarts', why: 'Apache ECharts charts: near-duplicates of the AntV chart tools on another server' },
  { id: 'mongodb', package: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled', MDB_MCP_LOG_PATH: '{tmp}' }, why: 'official MongoDB: document database and Atlas admin, many tools' },
  { id: 'sqlite', package: '@executeautomation/database-server', args: ['{tmp}/catalog.db'], why: 'community SQL server (SQLite/SQL Server/Postgres/MySQL): near-duplicates of postgres' },
  { id: 'supabase', package: '@supabase/mcp-server-supabase', args: ['--access-token=sbp_dummy'], why: 'official Supabase: hosted Postgres projects, migrations, edge functions, logs' },
  { id: 'neon', package: '@neondatabase/mcp-server-neon', args: ['start', 'napi_dummy'], why: 'official Neon: serverless Postgres branches and SQL (overlaps supabase/postgres)' },
  { id: 'upstash', package: '@upstash/mcp-server', args: ['run', 'dummy@example.com', 'dummy'], why: 'official Upstash: hosted Redis databases, key/value commands' },
  { id: 'cloudflare', package: '@cloudflare/mcp-server-cloudflare', args: ['run', '00000000000000000000000000000000'], env: { CLOUDFLARE_API_TOKEN: 'dummy' }, why: 'Cloudflare: workers, KV, R2, D1, DNS (cloud/devops)' },
  { id: 'sentry', package: '@sentry/mcp-server', args: ['--access-token=dummy'], env: { SENTRY_ACCESS_TOKEN: 'dummy' }, why: 'official Sentry: errors, issues and releases (devops)' },
  { id: 'azure-devops', package: '@azure-devops/mcp', args: ['contoso'], why: 'official Azure DevOps: work items, repos, pipelines, wikis (overlaps github, jira)' },
  { id: 'heroku', package: '@heroku/mcp-server', env: { HEROKU_API_KEY: 'dummy' }, why: 'official Heroku: apps, dynos, add-ons, logs (cloud)' },
  { id: 'hubspot', package: '@hubspot/mcp-server', env: { PRIVATE_APP_ACCESS_TOKEN: 'pat-dummy' }, why: 'official HubSpot CRM: contacts, companies, deals, notes' },
  { id: 'jira', package: '@aashari/mcp-server-atlassian-jira', env: { ATLASSIAN_SITE_NAME: 'dummy', ATLASSIAN_USER_EMAIL: 'dummy@example.com', ATLASSIAN_API_TOKEN: 'dummy' }, why: 'community Jira: issues, projects, comments, worklogs' },
  { id: 'linear', package: '@tacticlaunch/mcp-linear', env: { LINEAR_API_TOKEN: 'lin_api_dummy' }, why: 'community Linear: issues, projects, cycles (near-duplicates of jira/github issues)' },
  { id: 'obsidian', package: 'obsidian-mcp', args: ['{tmp}'], why: 'community Obsidian vault: notes, tags, search (overlaps filesystem, notion)' },
  { id: 'gmail', package: '@gongrzhe/server-gmail-autoauth-mcp', why: 'community Gmail: send, search, label and filter mail' },
  { id: 'google-calendar', package: '@cocal/google-calendar-mcp', env: { GOOGLE_OAUTH_CREDENTIALS: '{tmp}/gcp-oauth.keys.json' }, why: 'community Google Calendar: events, free/busy' },
  { id: 'chrome-devtools', package: 'chrome-devtools-mcp', why: 'official Chrome DevTools: browser automation and performance traces (near-duplicates of playwright/puppeteer)' },
  { id: 'browserbase', package: '@browserbasehq/mcp-server-browserbase', env: { BROWSERBASE_API_KEY: 'dummy', BROWSERBASE_PROJECT_ID: 'dummy', GEMINI_API_KEY: 'dummy' }, why: 'vendor cloud browser: a fourth browser-automation server' },
  { id: 'browser', package: '@agent-infra/mcp-server-browser', why: 'ByteDance agent-infra browser: a fifth browser server with terse tool texts' },
  { id: 'deepl', package: 'deepl-mcp-server', env: { DEEPL_API_KEY: 'dummy' }, why: 'official DeepL translation: overlaps lara' },
  { id: 'howtocook', package: 'howtocook-mcp', why: 'Chinese recipe server: tool descriptions in Chinese' },
  { id: 'lark', package: '@larksuiteoapi/lark-mcp', args: ['mcp', '-a', 'cli_dummy', '-s', 'dummy', '-l', 'zh'], why: 'official Feishu/Lark: messages, docs, calendar, bitable, descriptions in Chinese' },
  { id: 'edgeone-pages', package: 'edgeone-pages-mcp', why: 'Tencent EdgeOne Pages: deploy HTML to a public URL (Chinese vendor)' },
  { id: 'leetcode', package: '@jinzcdev/leetcode-mcp-server', args: ['--site', 'cn'], why: 'community LeetCode (leetcode.cn site): problems, contests, submissions' },
  { id: 'brave', package: '@brave/brave-search-mcp-server', why: 'official Brave search (new): near-duplicates of the archived brave-search server' },
  { id: 'weather', package: '@h1deya/mcp-server-weather', why: 'US National Weather Service forecasts and alerts, terse descriptions' },
  { id: 'twilio', package: '@twilio-alpha/mcp', args: ['AC00000000000000000000000000000000/SK00000000000000000000000000000000:dummy'], why: 'Twilio: SMS/voice APIs generated from OpenAPI (many tools, terse names)' },
];
