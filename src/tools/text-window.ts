export type { TextWindow, TextWindowLine, TextWindowOptions } from '../contracts/runtime.js';

/** How many leading bytes decide whether a file is binary. */
export const BINARY_PREFIX_BYTES = 8_192;
