/**
 * What each --scale builds. Tasks spread evenly over the leaf domains
 * org<o>/team<t>/area<a>; every workload's scope is chosen so it holds the
 * same amount of work at both scales (mustRead: at least 200 open tasks).
 */
export const SCALES = {
  small: { tasks: 1_000, orgs: 1, teams: 1, areas: 5, itemsPerTask: 20, commentsPerTask: 2, notes: 200, plans: 50, stepsPerPlan: 5 },
  large: { tasks: 100_000, orgs: 5, teams: 20, areas: 5, itemsPerTask: 20, commentsPerTask: 2, notes: 20_000, plans: 5_000, stepsPerPlan: 5 },
};

/** The word planted in 0.1% of tasks (one in every 1,000) for the search workload. */
export const SEARCH_WORD = 'zephyrine';
/**
 * The word planted in the same number of tasks at every scale (EVEN_HITS):
 * searched for at both scales, it asks for the same answer over 1,000 and
 * over 100,000 tasks, so the two p50s say whether search grows with the data
 * (issue 20's "within 1.5 ×"). SEARCH_WORD's hits grow with the tasks.
 */
export const EVEN_WORD = 'quillwort';
export const EVEN_HITS = 40;

export function leafCount(scale) {
  return scale.orgs * scale.teams * scale.areas;
}

/** The leaf domain of the n-th leaf. */
export function leafDomain(scale, leaf) {
  const org = Math.floor(leaf / (scale.teams * scale.areas));
  const team = Math.floor(leaf / scale.areas) % scale.teams;
  const area = leaf % scale.areas;
  return `org${org}/team${team}/area${area}`;
}

/**
 * Where a workload reads: mustRead over one team (5 areas of 200 tasks: 1,000
 * tasks, 700 open, at both scales, so the two runs compare the same work over
 * 1,000 and 100,000 tasks), memories over one org.
 */
export const SCOPES = { mustRead: 'org0/team0', memories: 'org0' };
