import { describeRetrievalQuality } from './retrieval-quality.js';

// MetaTool (2,497 requests), the largest set, in a file of its own so it runs beside the others.
describeRetrievalQuality(['eval/metatool']);
