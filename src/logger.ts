import { pino, type Logger } from 'pino';

/** Structured logs to stdout (JSON lines), one logger per process. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'taskbase' } });
}
