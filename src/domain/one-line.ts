/**
 * A text or note shown inside one line of a list (a plan's checklist, an
 * item line): a line break in it would read as another line of the list, so
 * each break and the blanks around it become one space.
 */
export function oneLine(text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ');
}
