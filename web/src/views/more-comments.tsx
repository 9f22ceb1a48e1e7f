import { Refusal, useAction } from '../widgets';

/** Comments past the first page (the task's and its items', oldest first): the next page on demand, focus kept on the button. */
export function MoreComments({ shown, total, onMore }: { shown: number; total: number; onMore(): Promise<void> }) {
  const [run, error, busy] = useAction();
  return (
    <p class="more-comments">
      <button type="button" aria-disabled={busy} onClick={() => { if (!busy) void run(onMore); }}>Show more comments ({shown} of {total} loaded)</button>
      <Refusal error={error} />
    </p>
  );
}
