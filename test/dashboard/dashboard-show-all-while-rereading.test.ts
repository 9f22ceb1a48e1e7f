/**
 * "Show all" and a link to an unloaded item, asked for while the list is
 * being read again (just after "Show deleted items" was ticked), wait for
 * that read and then load every page. The re-read is held in the browser
 * until the click has happened, so the moment CI once hit by chance (the
 * list stopped at 30 rows) is the one tested every time.
 */
import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_TASK } from '../fixtures/documents.js';
import { dashboardSuite, openPage } from '../fixtures/browser.js';

// Evaluated in the page, not in Node.
declare const document: {
  querySelectorAll(selector: 'label'): Iterable<{ textContent: string | null; querySelector(selector: 'input'): { click(): void } | null }>;
  querySelectorAll(selector: string): { length: number };
};
declare const location: { hash: string };

const { server, browser, base } = dashboardSuite();
const label = (n: number) => `Check row ${String(n).padStart(3, '0')}`;
let taskId: string;
let itemIds: string[];

beforeAll(async () => {
  // 90 live items and 10 deleted ones: the list with deleted items has 100 rows, four pages of 30.
  const made = await server.ok(CREATE_TASK, { input: { title: 'Rereading', goal: 'g', domain: 'dashboard/reread', items: Array.from({ length: 100 }, (_, i) => label(i + 1)) } });
  taskId = made.createTask.task.id;
  itemIds = made.createTask.items.map((item: { id: string }) => item.id);
  await server.ok(`mutation { ${itemIds.slice(0, 10).map((id, i) => `d${i}: deleteItem(id: "${id}") { id }`).join(' ')} }`);
}, 60_000);

/** Holds the page's first read of the list with its deleted items until `release` is called. */
async function holdDeletedRead(page: Page): Promise<{ held: Promise<void>; release(): void }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let heard!: () => void;
  const held = new Promise<void>((resolve) => { heard = resolve; });
  let first = true;
  await page.route('**/graphql', async (route: Route) => {
    const body = route.request().postDataJSON() as { variables?: { deleted?: boolean; after?: string | null } } | null;
    if (first && body?.variables?.deleted === true && !body.variables.after) {
      first = false;
      heard();
      await released;
    }
    await route.continue();
  });
  return { held, release };
}

const rows = (page: Page) => page.evaluate(() => document.querySelectorAll('.checklist > li').length);

describe('the dashboard asked to load more while it reads the list again', () => {
  it('"Show all" clicked while the list is read again with deleted items shows all 100 rows', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    await page.getByText('Show more items (30 of 90 shown)').waitFor();
    const reread = await holdDeletedRead(page);
    // Ticked, then "Show all" clicked in the same moment: before the page has drawn the list being read again (where
    // the button is gone until it comes), as a quick user's second click lands.
    await page.getByRole('button', { name: 'Show all' }).evaluate((button: { click(): void }) => {
      const checkbox = [...document.querySelectorAll('label')].find((label) => label.textContent?.includes('Show deleted items'))?.querySelector('input');
      checkbox!.click();
      button.click();
    });
    await reread.held;
    reread.release();
    await page.waitForFunction(() => document.querySelectorAll('.checklist > li').length === 100, undefined, { timeout: 30_000 });
    expect(await page.locator('.checklist > li').last().locator('.text').textContent()).toBe(label(100));
    expect(await rows(page)).toBe(100);
  }, 60_000);

  it('a link to an item past the first page, followed while the list is read again, shows that item', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    await page.getByText('Show more items (30 of 90 shown)').waitFor();
    const reread = await holdDeletedRead(page);
    await page.getByLabel('Show deleted items').check();
    await reread.held;
    const target = itemIds[95]!;
    await page.evaluate((id) => { location.hash = `#/task/${id.task}?item=${id.item}`; }, { task: taskId, item: target });
    reread.release();
    const row = page.locator(`#item-${target}`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.locator('.text').textContent()).toBe(label(96));
  }, 60_000);
});
