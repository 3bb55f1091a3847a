// the config's duration form ("30m"), read where the config declares it
export { parseDuration } from '../config/sections/duration-schema.js';
