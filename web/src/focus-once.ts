/** A ref that focuses a field when it first appears, and never again on later renders (which would pull focus back from the next field). */
export function focusOnce(element: HTMLElement | null): void {
  if (!element || element.dataset.focused) return;
  element.dataset.focused = '1';
  element.focus();
}
