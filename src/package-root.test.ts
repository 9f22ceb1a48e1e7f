import { describe, expect, it } from 'vitest';
import { defaultDatabaseUrl, runsFromAClone } from './package-root.js';

describe('the default database', () => {
  it('is data/taskbase.sqlite under the starting folder in a clone', () => {
    expect(runsFromAClone()).toBe(true);
    expect(defaultDatabaseUrl({ XDG_DATA_HOME: '/x', HOME: '/h' })).toBe('sqlite:data/taskbase.sqlite');
  });

  it('is in the user\'s data folder when installed: $XDG_DATA_HOME/taskbase, else ~/.local/share/taskbase (an empty or relative XDG_DATA_HOME is ignored)', () => {
    expect(defaultDatabaseUrl({ XDG_DATA_HOME: '/data/me', HOME: '/home/me' }, false)).toBe('sqlite:/data/me/taskbase/taskbase.sqlite');
    expect(defaultDatabaseUrl({ HOME: '/home/me' }, false)).toBe('sqlite:/home/me/.local/share/taskbase/taskbase.sqlite');
    expect(defaultDatabaseUrl({ XDG_DATA_HOME: '', HOME: '/home/me' }, false)).toBe('sqlite:/home/me/.local/share/taskbase/taskbase.sqlite');
    expect(defaultDatabaseUrl({ XDG_DATA_HOME: 'rel/ative', HOME: '/home/me' }, false)).toBe('sqlite:/home/me/.local/share/taskbase/taskbase.sqlite');
  });
});
