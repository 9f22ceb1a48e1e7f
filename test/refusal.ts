import { DomainError } from '../src/domain/errors.js';

/** Runs `run` and returns the DomainError it throws; fails when it throws nothing, or something else. */
export function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}
