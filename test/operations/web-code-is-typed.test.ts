import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anysIn, importsBackUp } from '../../scripts/web-code-checks.mjs';

// The dashboard's code (web/src): every answer it reads has a type, and the
// pages in views/ are imported only by the entry, so nothing shared sits above them.
describe('the dashboard code', () => {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'web-checks-'));
  afterAll(() => fs.rmSync(made, { recursive: true, force: true }));

  it('writes no `any`', () => {
    expect(anysIn()).toEqual([]);
  });

  it('imports nothing from views/ outside it, but the entry', () => {
    expect(importsBackUp()).toEqual([]);
  });

  it('sees an `any` and an import back up when one is made, and not the word in a comment or the page text', () => {
    const file = (name: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(made, name)), { recursive: true });
      fs.writeFileSync(path.join(made, name), text);
    };
    file('web/src/views/page.tsx', 'export const Page = () => <p>set any item back</p>; // any\n');
    file('web/src/main.tsx', "import { Page } from './views/page';\n");
    file('web/src/shared.ts', "import { Page } from './views/page';\nexport const wide = (value: any) => value as any;\n");
    expect(anysIn(made)).toEqual(['web/src/shared.ts:2', 'web/src/shared.ts:2']);
    expect(importsBackUp(made)).toEqual(['web/src/shared.ts → web/src/views/page']);
  });
});
