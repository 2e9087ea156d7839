import { useId, type ReactNode } from 'react';

/** A titled card; the title labels the region for assistive technology. */
export function Panel({ title, intro, className, children }: { title: string; intro?: ReactNode; className?: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className={`panel ${className ?? ''}`} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro && <p className="intro">{intro}</p>}
      {children}
    </section>
  );
}
