import { describeRetrievalQuality } from './retrieval-quality.js';

// API-Bank, the recorded real MCP catalogs (issue 17) and the CJK and Latin-script request sets.
describeRetrievalQuality([
  'eval/apibank',
  'real-mcp-catalog/dev',
  'real-mcp-catalog/heldout',
  'real-mcp-catalog-wide/heldout',
  'real-mcp-catalog-wide/old-dev',
  'real-mcp-catalog-wide/old-heldout',
  'cjk-requests',
  'latin-requests',
]);
