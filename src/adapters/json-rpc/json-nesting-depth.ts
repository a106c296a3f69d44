/** The nesting-depth scans live in the core (the model's tool arguments are bounded the same way). */
export { textNestsDeeperThan, valueNestsDeeperThan } from '../../agent/json-nesting-depth.js';
