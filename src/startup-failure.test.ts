import { describe, expect, it } from 'vitest';
import { startupFailure } from './startup-failure.js';

describe('startupFailure', () => {
  it('says which Node a native module was built for, and how to rebuild it', () => {
    // What Node 22 says when it loads a better-sqlite3 built by Node 20.
    const error = new Error(
      "The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
        'NODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module.',
    );
    const line = startupFailure(error);
    expect(line).not.toContain('\n');
    expect(line).toContain('built for Node 20');
    expect(line).toContain(`this is Node ${process.versions.node}`);
    expect(line).toContain('npm rebuild better-sqlite3');
  });

  it('names a PostgreSQL that refuses without its password', () => {
    const error = Object.assign(new Error('password authentication failed for user "me"'), { code: '28P01' });
    expect(startupFailure(error, 'postgres://me:hunter2@db.internal:6543/tasks')).toBe(
      'PostgreSQL at db.internal:6543/tasks refused the user or password in DATABASE_URL: check them.',
    );
  });

  it('keeps the message of anything else', () => {
    expect(startupFailure(new Error('EACCES: permission denied, mkdir /data'), 'sqlite:/data/x.sqlite')).toBe('EACCES: permission denied, mkdir /data');
  });
});
