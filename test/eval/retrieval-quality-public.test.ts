import { describeRetrievalQuality } from './retrieval-quality.js';

// The two public sets (issue 4's bar); hybrid must beat both single modes on them.
describeRetrievalQuality(['eval/metatool', 'eval/apibank']);
