import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/** The plugin's logger: JSON lines on stderr (stdout is for command output), at WPP_LOG_LEVEL. */
export function createLogger(config: Config): Logger {
  return pino({ name: 'wpp', level: config.logLevel }, pino.destination(2));
}
