import type { Services } from '../src/services/index.js';

/** Placeholder until the demo data lands. */
export async function seedDemo(_services: Services): Promise<string> {
  return 'nothing to seed yet';
}
