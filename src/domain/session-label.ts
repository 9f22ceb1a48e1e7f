/** What a session is called where people read it: its name, else "session" and the first 8 characters of its id (the dashboard's sessionLabel says the same). */
export function sessionLabel(id: string, name: string | null): string {
  return name || `session ${id.slice(0, 8)}`;
}

/** A plan's title as people read it: the plan of its session, by name. */
export function planTitle(sessionId: string, name: string | null): string {
  return `Plan of ${sessionLabel(sessionId, name)}`;
}
