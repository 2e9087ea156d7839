// The content width of an element, kept current with a ResizeObserver: charts draw at this
// width and thin their points to it.
import { useCallback, useRef, useState } from 'react';

export function useWidth<T extends HTMLElement>(): [(el: T | null) => void, number] {
  const [width, setWidth] = useState(0);
  const observer = useRef<ResizeObserver | null>(null);
  const ref = useCallback((el: T | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!el) return;
    setWidth(Math.floor(el.clientWidth));
    observer.current = new ResizeObserver((entries) => setWidth(Math.floor(entries[0].contentRect.width)));
    observer.current.observe(el);
  }, []);
  return [ref, width];
}
