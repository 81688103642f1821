/** Library entry point: start Stratus from Node code. Store and runtime exports are added by their modules. */
export { startStratus, type RunningStratus } from './main.js';
export { loadConfig, type Config } from './config/config.js';
