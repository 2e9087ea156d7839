// Metrics: pass@k family, diversity, entropy and coverage. A leaf layer (it reads only the world).
export * from './passk';
export * from './diversity';
export * from './eigen';
export * from './entropy';
export * from './coverage';
