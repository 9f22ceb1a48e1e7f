import { useEffect, useRef } from 'preact/hooks';

/**
 * Reads the next page when the end of a list scrolls near the screen, as a
 * long list in Linear or GitHub Projects does; the buttons beside it stay for
 * the keyboard and for reading everything at once.
 */
export function MoreOnScroll({ onMore }: { onMore(): Promise<void> }) {
  const ref = useRef<HTMLSpanElement>(null);
  const latest = useRef(onMore);
  latest.current = onMore;
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      // Observed again once read, so a sentinel still near the screen reads the page after.
      if (entries.some((entry) => entry.isIntersecting)) void latest.current().then(() => { observer.unobserve(el); observer.observe(el); });
    }, { rootMargin: '200px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return <span ref={ref} class="more-sentinel" aria-hidden="true" />;
}
