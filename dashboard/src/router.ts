/** A hash router: `#/zones/abc/dns` -> ['zones', 'abc', 'dns']; nothing of the credential ever goes in it. */
import { useEffect, useState } from 'preact/hooks';

/** The path segments of the current hash. */
export function currentRoute(): string[] {
  const path = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

/** The current route, updated on navigation. */
export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The href of a route (segments encoded). */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

/** Goes to a route. */
export function navigate(...segments: string[]): void {
  location.hash = href(...segments);
}
