/** What a session is called where people read it: its name (given, its client's, or its first step), else its short id. */
export function sessionLabel(session: { id: string; name?: string | null }): string {
  return session.name || `session ${session.id.slice(0, 8)}`;
}
