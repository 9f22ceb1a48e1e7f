import { useEffect } from 'preact/hooks';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Keeps Tab and Shift+Tab inside a dialog while it is open (the page behind
 * is out of reach, as aria-modal says), and gives focus back to where it was
 * when the dialog closes. Escape calls onEscape when given.
 */
export function useFocusTrap(ref: { current: HTMLElement | null }, onEscape?: () => void): void {
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const container = ref.current;
    if (!container) return;
    if (!container.contains(document.activeElement)) (container.querySelector(FOCUSABLE) as HTMLElement | null)?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && onEscape) { event.preventDefault(); event.stopPropagation(); onEscape(); return; }
      if (event.key !== 'Tab') return;
      const stops = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
      if (stops.length === 0) { event.preventDefault(); return; }
      const first = stops[0];
      const last = stops[stops.length - 1];
      const inside = container.contains(document.activeElement);
      if (event.shiftKey && (document.activeElement === first || !inside)) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && (document.activeElement === last || !inside)) { event.preventDefault(); first.focus(); }
    };
    // Capture, so a shortcut listener never sees a key meant for the dialog.
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      if (before && before.isConnected && before !== document.body) before.focus();
    };
  }, []);
}
