/**
 * The demo knowledge base `npm run seed` loads: a few tasks in three domains,
 * in every state (open with work in progress, completed, cancelled), with
 * deleted and added items and a goal that cites an item as [[#id]].
 *
 * Everything goes through the services, so the demo obeys the same rules and
 * records the same history as real use. Running it again adds nothing: each
 * task is created with an idempotency key (a retry returns the first task),
 * and the follow-up work on a task runs only while the task is still at
 * version 1, i.e. just created.
 */
import type { ItemState } from '../src/domain/states.js';
import type { Services } from '../src/services/index.js';
import type { Caller } from '../src/services/kernel/unit-of-work.js';

const caller: Caller = { sessionId: null };

/** What the follow-up work of one demo task can do, naming items by label. */
interface Work {
  /** The id of the live item with this label. */
  id(label: string): string;
  set(label: string, state: ItemState, comment?: string): Promise<void>;
  add(labels: string[], after?: string): Promise<void>;
  remove(label: string): Promise<void>;
  /** Rewrites the goal; `goal` gets the id lookup so it can cite items as [[#id]]. */
  goal(goal: (id: (label: string) => string) => string): Promise<void>;
}

interface DemoTask {
  key: string;
  title: string;
  goal: string;
  domain: string;
  items: string[];
  work(task: Work): Promise<void>;
}

const DEMO_TASKS: DemoTask[] = [
  {
    key: 'billing-webhooks',
    title: 'Move billing webhooks to the idempotent handler',
    goal: 'Every billing webhook is deduplicated by event id, so a provider retry never books a charge twice.',
    domain: 'acme/checkout/billing',
    items: ['Key charge.succeeded by event id', 'Cover refunds and disputes', 'Remove the charge-id lookup'],
    async work(task) {
      await task.set('Key charge.succeeded by event id', 'DONE', 'Handler keys off the event id; a replayed fixture books once.');
      await task.set('Cover refunds and disputes', 'IN_PROGRESS');
      await task.add(['Document the replay queue']);
      await task.goal((id) =>
        `Every billing webhook is deduplicated by event id, so a provider retry never books a charge twice. ` +
        `Refunds and disputes ([[#${id('Cover refunds and disputes')}]]) share one queue, so they go last.`);
    },
  },
  {
    key: 'invoice-vat',
    title: 'Show VAT on invoices',
    goal: 'Invoices for EU customers show the VAT rate and amount on every line.',
    domain: 'acme/checkout/billing',
    items: ['Collect VAT rates per country', 'Store the VAT rate on each invoice line', 'Email the invoice PDF to the customer', 'Show VAT on the invoice PDF'],
    async work(task) {
      await task.set('Collect VAT rates per country', 'DONE', 'Rates come from the tax provider, cached daily.');
      await task.set('Store the VAT rate on each invoice line', 'BLOCKED', 'Needs the invoice_lines migration; waiting on the DBA review.');
      // Filed here by mistake: it belongs to the mailer's task.
      await task.remove('Email the invoice PDF to the customer');
    },
  },
  {
    key: 'payment-form-errors',
    title: 'Redesign the payment form error states',
    goal: 'A customer who mistypes a card sees what went wrong next to the field and keeps what they typed.',
    domain: 'acme/checkout/ui',
    items: [
      'Show card errors inline under the field',
      'Keep the entered card number after an error',
      'Announce errors to screen readers',
      'Animate the error banner',
      'Reproduce the Safari autofill bug',
    ],
    async work(task) {
      await task.set('Show card errors inline under the field', 'DONE', 'Shipped behind the new-form flag; checked on the staging checkout.');
      await task.set('Keep the entered card number after an error', 'DONE', 'Field keeps its value; the CVC is cleared on purpose.');
      await task.set('Announce errors to screen readers', 'DONE', 'aria-live region checked with VoiceOver and NVDA.');
      await task.set('Animate the error banner', 'DROPPED', 'Motion review: distracting at checkout.');
      await task.set('Reproduce the Safari autofill bug', 'DROPPED', 'Could not reproduce on Safari 17; closed with the reporter.');
    },
  },
  {
    key: 'apple-pay',
    title: 'Offer Apple Pay on the payment form',
    goal: 'Customers on Safari can pay with Apple Pay without typing a card.',
    domain: 'acme/checkout/ui',
    items: ['Register the merchant domain with Apple', 'Add the Apple Pay button to the form'],
    async work(task) {
      await task.set('Register the merchant domain with Apple', 'FAILED', 'Apple rejected the verification file: it was served as text/html, not text/plain.');
      await task.add(['Hide the button where Apple Pay is unavailable']);
    },
  },
  {
    key: 'arm-runners',
    title: 'Move CI runners to ARM machines',
    goal: 'CI runs on ARM runners and costs less per build.',
    domain: 'ops/infra',
    items: ['Build the runner image for arm64', 'Benchmark the test suite on ARM', 'Switch the default runner pool'],
    async work(task) {
      const reason = 'ARM runners are priced above x86 this year; revisit at the next contract.';
      await task.set('Build the runner image for arm64', 'DROPPED', reason);
      await task.set('Benchmark the test suite on ARM', 'DROPPED', reason);
      await task.set('Switch the default runner pool', 'DROPPED', reason);
    },
  },
  {
    key: 'rotate-db-credentials',
    title: 'Rotate the production database credentials',
    goal: 'Every service connects with the new database role and the old one is revoked.',
    domain: 'ops/infra',
    items: ['Create the new database role', 'Update the secrets in the vault', 'Restart the API servers', 'Revoke the old role'],
    async work(task) {
      await task.set('Create the new database role', 'DONE', 'Role created with the same grants; diffed with pg_dump --schema-only.');
      await task.set('Update the secrets in the vault', 'IN_PROGRESS');
      // A restart all at once would drop traffic: replaced by a rolling restart.
      await task.remove('Restart the API servers');
      await task.add(['Roll the API servers one at a time'], 'Update the secrets in the vault');
      await task.goal((id) =>
        `Every service connects with the new database role. Revoke the old role ([[#${id('Revoke the old role')}]]) ` +
        `only after [[#${id('Roll the API servers one at a time')}]] has finished.`);
    },
  },
];

/**
 * Loads the demo tasks through the services. Idempotent: a second run finds
 * every task by its key and changes nothing. Returns a one-line summary.
 */
export async function seedDemo(services: Services): Promise<string> {
  const tasks = services.tasks;
  let created = 0;
  for (const demo of DEMO_TASKS) {
    const { task, items } = await tasks.createTask(caller, {
      title: demo.title, goal: demo.goal, domain: demo.domain, items: demo.items, idempotencyKey: `demo-seed:${demo.key}`,
    });
    // Past version 1, this task was seeded before (or changed since): leave it as it is.
    if (task.version > 1) continue;
    created += 1;
    const ids = new Map(items.map((item) => [item.text, String(item.id)]));
    const id = (label: string): string => {
      const found = ids.get(label);
      if (!found) throw new Error(`demo seed: task "${demo.title}" has no item "${label}"`);
      return found;
    };
    await demo.work({
      id,
      set: async (label, state, comment) => { await tasks.updateItem(caller, { id: id(label), state, comment }); },
      add: async (labels, after) => {
        const added = await tasks.addItems(caller, {
          taskId: String(task.id), items: labels, after: after === undefined ? null : id(after), idempotencyKey: `demo-seed:${demo.key}:add:${labels.join('|')}`,
        });
        for (const item of added.items) ids.set(item.text, String(item.id));
      },
      remove: async (label) => {
        await tasks.deleteItem(caller, id(label));
        ids.delete(label);
      },
      goal: async (goal) => { await tasks.editTask(caller, { id: String(task.id), goal: goal(id) }); },
    });
  }
  const domains = [...new Set(DEMO_TASKS.map((demo) => demo.domain))].sort();
  return `Demo knowledge base: ${DEMO_TASKS.length} tasks in ${domains.length} domains (${domains.join(', ')}); ${created} created, ${DEMO_TASKS.length - created} already there.`;
}
