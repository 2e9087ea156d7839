// The screen stays awake while a run of this page computes; pausing or stopping releases it.
import { useEffect, useRef, useState } from 'react';
import { selectRunsComputing } from '../state/store';
import { WakeLockKeeper, type WakeLockApi, type WakeLockStatus } from '../state/wakeLock';
import { useLab } from './LabStore';

export function useWakeLock(): WakeLockStatus {
  const computing = useLab(selectRunsComputing);
  const [status, setStatus] = useState<WakeLockStatus>('off');
  const keeper = useRef<WakeLockKeeper | null>(null);
  keeper.current ??= new WakeLockKeeper((navigator as { wakeLock?: WakeLockApi }).wakeLock, setStatus);
  useEffect(() => {
    const k = keeper.current!;
    void k.want(computing);
    // the browser releases the lock when the page is hidden; take it again on return
    const onVisible = () => document.visibilityState === 'visible' && void k.want(computing);
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [computing]);
  useEffect(() => () => void keeper.current?.want(false), []);
  return keeper.current.status === 'unsupported' ? 'unsupported' : status;
}
