import { useEffect, useRef, useState } from 'preact/hooks';
import { planMessage, type PlanPreset } from '../../../src/domain/plan-rules';
import { renderChecklist, renderSteps, stepCounts, type ChecklistItem } from '../../../src/domain/plan-render';
import { gql } from '../api';
import { Refusal } from '../widgets';

const STEPS = `query($id: ID!, $deleted: Boolean!, $after: String) { task(id: $id) {
  items(first: 200, after: $after, includeDeleted: $deleted) { pageInfo { hasNextPage endCursor } nodes { id text state note added deleted } } } }`;
/** A step as STEPS reads it: the renderer's item, its id as the API sends it. */
type Step = Omit<ChecklistItem, 'id'> & { id: string };
interface StepsPage { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Step[] }
/** A plan is at most a few hundred steps; past this many pages the view says it stopped. */
const MAX_PAGES = 5;

const SET_NAMES: Record<PlanPreset, string> = { WHOLE_LIST: 'whole-list', STEP_OPS: 'step-ops', PLAN_AND_FINISH: 'plan-and-finish' };

/**
 * A session's plan as its tool set answers its agent, text for text (the
 * renderer is the tools' own, src/domain/plan-render.ts): plan-and-finish's
 * table with glyphs, task ids and "(added mid-session)"; step-ops' numbered
 * list with its counts; whole-list's counts line. Read again whenever the task
 * moves on (its version), one read at a time; the checklist beside it holds
 * the controls, in the same set's words.
 */
export function AgentView({ taskId, preset, version }: { taskId: string; preset: PlanPreset; version: number }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });
  useEffect(() => {
    let current = true;
    const read = async () => {
      if (reading.current.busy) { reading.current.again = true; return; }
      reading.current.busy = true;
      try {
        const items: Step[] = [];
        let after: string | null = null;
        // plan-and-finish's ids count deleted tasks too (an id is never handed out again), so it reads them.
        for (let page = 0; page < MAX_PAGES; page += 1) {
          const found: StepsPage | undefined = (await gql<{ task: { items: StepsPage } | null }>(STEPS, { id: taskId, deleted: preset === 'PLAN_AND_FINISH', after })).task?.items;
          if (!found) break;
          items.push(...found.nodes);
          if (!found.pageInfo.hasNextPage) break;
          after = found.pageInfo.endCursor;
        }
        if (current) { setText(render(preset, items)); setError(null); }
      } catch (failure) {
        if (current) setError((failure as Error).message);
      } finally {
        reading.current.busy = false;
        if (reading.current.again && current) { reading.current.again = false; void read(); }
      }
    };
    void read();
    return () => { current = false; };
  }, [taskId, preset, version]);
  return (
    <section class="agent-view" aria-labelledby="agent-view-heading">
      <h3 id="agent-view-heading">As its agent sees it <span class="muted">· {SET_NAMES[preset]}</span></h3>
      <Refusal error={error} />
      {text === null ? !error && <p class="muted">Loading…</p> : <pre class="agent-text">{text}</pre>}
      <p class="muted small">Change a step with its control in the checklist below; the agent reads the change on its next call.</p>
    </section>
  );
}

function render(preset: PlanPreset, items: Step[]): string {
  const steps = items.map((item) => ({ ...item, id: Number(item.id) }));
  const live = steps.filter((step) => !step.deleted);
  switch (preset) {
    case 'PLAN_AND_FINISH': return renderChecklist(steps);
    case 'STEP_OPS': return `${stepCounts(live)}\n\n${renderSteps(live)}`;
    case 'WHOLE_LIST': return planMessage(live);
  }
}
