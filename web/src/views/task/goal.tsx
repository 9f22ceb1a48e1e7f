import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { Conflict, saveAtVersion } from '../../conflicts';
import { HashField } from '../../hash-field';
import { memo, sameProps } from '../../memo';
import { RefText } from '../../refs';
import { MoreText, Refusal, useAction } from '../../widgets';
import { EDIT_TASK, CURRENT_GOAL } from './documents';
import type { Choice } from './choices';
import type { ItemRef } from '../../task-types';

interface GoalProps { taskId: string; goal: string; goalRefs: ItemRef[]; version: { current: number }; choices: Choice[]; writable: boolean }
/** Re-rendered when the goal, its links or the # choices change, not on every change of the task. */
export const Goal = memo(GoalView, sameProps);

function GoalView({ taskId, goal: saved, goalRefs, version, choices, writable }: GoalProps) {
  const task = { id: taskId, goal: saved, goalRefs };
  const [editing, setEditing] = useState<{ version: number; value: string } | null>(null);
  const [goal, setGoal] = useState(task.goal);
  const [conflict, setConflict] = useState<{ theirs: string; version: number } | null>(null);
  const [run, error, busy] = useAction();
  const save = async (base: { version: number; value: string }) => {
    await run(async () => {
      const outcome = await saveAtVersion({
        base,
        send: (version) => gql(EDIT_TASK, { input: { id: task.id, goal, expectedVersion: version } }),
        current: async () => { const now = (await gql<{ task: { version: number; goal: string } }>(CURRENT_GOAL, { id: task.id })).task; return { version: now.version, value: now.goal }; },
      });
      if (outcome.saved) { setEditing(null); setConflict(null); } else setConflict({ theirs: outcome.theirs, version: outcome.version });
    });
  };
  return (
    <section class="goal" aria-label="The goal">
      {editing ? (
        <form onSubmit={(event) => { event.preventDefault(); void save(editing); }}>
          <HashField label="Goal" value={goal} onInput={setGoal} items={choices} rows={4} />
          {conflict ? (
            <Conflict what="The goal" mine={goal} theirs={conflict.theirs}
              onMine={() => void save({ version: conflict.version, value: conflict.theirs })}
              onTheirs={() => { setConflict(null); setEditing(null); }} />
          ) : <><button type="submit" disabled={busy}>Save goal</button> <button type="button" onClick={() => setEditing(null)}>Cancel</button></>}
          <Refusal error={error} />
        </form>
      ) : (
        <div><strong>Goal:</strong> <MoreText><RefText text={task.goal} refs={task.goalRefs} taskId={task.id} /></MoreText>{' '}
          {writable && <button type="button" class="small" onClick={() => { setGoal(task.goal); setEditing({ version: version.current, value: task.goal }); }}>Edit goal</button>}</div>
      )}
    </section>
  );
}
