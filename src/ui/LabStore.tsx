// React access to the lab store: the store is created once (main.tsx) and provided here;
// components select the small pieces they render.
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { LabState, LabStore } from '../state/store';

const StoreContext = createContext<LabStore | null>(null);

export function LabStoreProvider({ store, children }: { store: LabStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useLab<T>(selector: (s: LabState) => T): T {
  return useStore(useLabStore(), selector);
}

/** The store itself, for code that reads it outside rendering (event handlers). */
export function useLabStore(): LabStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useLab needs a <LabStoreProvider> above it');
  return store;
}
