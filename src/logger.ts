import { destination, pino, type Logger } from 'pino';

/** Structured logs (JSON lines), one logger per process: to stdout, or to stderr where stdout is a protocol's (taskbase mcp). */
export function createLogger(level: string, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = { level, base: { service: 'taskbase' } };
  return to === 'stderr' ? pino(options, destination(2)) : pino(options);
}
