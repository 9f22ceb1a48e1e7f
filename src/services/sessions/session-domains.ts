import { DomainError } from '../../domain/errors.js';
import { cleanDomain } from '../../domain/domains.js';
import type { Caller, Writer } from '../kernel/unit-of-work.js';

/**
 * Records on the calling session a domain it named in a read (memories,
 * mustRead, search, domains). Mutations record theirs in their own
 * transaction; a read has none, so it takes a small one of its own.
 */
export class SessionDomains {
  constructor(private readonly writer: Writer) {}

  async named(caller: Caller, domain: string | null | undefined): Promise<void> {
    if (!caller.sessionId || domain === null || domain === undefined) return;
    const clean = cleanDomain(domain);
    try {
      await this.writer.run(caller, async (uow) => uow.touchDomain(clean));
    } catch (error) {
      // Any token may read, with any x-session-id: naming another token's session, or none, in a read just records nothing.
      if (!(error instanceof DomainError && (error.code === 'FORBIDDEN' || error.code === 'NO_SESSION'))) throw error;
    }
  }
}
