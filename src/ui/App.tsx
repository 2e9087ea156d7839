// The lab's run page: set up a run, watch it train live (charts, evaluations, samples), and
// below, the GPU the worker found, the kernel self-test and the memorise demo.
import { useEffect, useMemo } from 'react';
import { AdapterPanel } from './AdapterPanel';
import { CurriculumPanel, EvaluationCharts, TrainingCharts } from './ChartsPanel';
import { DemoPanel } from './DemoPanel';
import { CpuMode } from './CpuMode';
import { DeviceAlerts } from './DeviceAlerts';
import { AddressWarnings, Launcher, StartBar } from './Launcher';
import { useLab } from './LabStore';
import { RunsPanel } from './Runs';
import { SamplesPanel } from './SamplesPanel';
import { SelfTestPanel } from './SelfTestPanel';
import { HelpOverlay, useShortcuts } from './Shortcuts';
import { useWakeLock } from './useWakeLock';
import type { WakeLockStatus } from '../state/wakeLock';
import type { Hideable } from '../state/url';
import { ChartWarmup } from './charts/Warmup';
import { Intro, useIntro } from './Intro';
import { Explorer } from './explorer/Explorer';
import { LessonBanner, LessonFocus } from './Lesson';
import { paperLesson } from '../state/lessons';

const WAKE_TEXT: Record<WakeLockStatus, string> = {
  unsupported: 'This browser cannot keep the screen awake: keep it from sleeping while a run trains.',
  off: 'The screen is kept awake while a run trains.',
  held: 'Keeping the screen awake while the run trains.',
  refused: 'The browser refused to keep the screen awake (battery saver?): keep it from sleeping while a run trains.',
};

/** `?debug` in the URL shows commands for exercising failure paths by hand and in the browser tests. */
function DebugTools() {
  const lose = useLab((s) => s.debugLoseDevice);
  const ready = useLab((s) => s.device.adapter.status === 'ready' && s.device.deviceLost === null);
  return (
    <div className="debug" aria-label="Debug tools">
      <button
        type="button" className="secondary" data-testid="debug-lose-device" disabled={!ready} onClick={() => void lose()}
        title="Destroys the GPU device of the selected run's worker while the run is active, else that of the page's engine"
      >
        Simulate device loss
      </button>
    </div>
  );
}

export function App({ debug = false }: { debug?: boolean }) {
  const init = useLab((s) => s.initDevice);
  const wake = useWakeLock();
  // a lesson link (`?hide=…`) can hide parts of the page
  const hidden = useLab((s) => s.lesson.hide);
  const shown = (part: Hideable) => !hidden.includes(part);
  // the New run panel: hidden with the launcher, or alone (`newrun`: the launcher's knobs)
  const form = shown('launcher') && shown('newrun');
  const lesson = paperLesson(useLab((s) => s.lesson.paper));
  const focus = useMemo(() => lesson?.charts.map((c) => c.id) ?? [], [lesson]);
  const [intro, setIntro] = useIntro();
  useShortcuts();
  useEffect(() => {
    void init();
  }, [init]);
  return (
    <>
      <header className="masthead">
        <h1>RLVR Lab</h1>
        <p className="tagline">
          Reinforcement learning with verifiable rewards, trained on your own GPU, in your browser.
          {!intro && (
            <>
              {' '}
              <button type="button" className="link" data-testid="intro-open" onClick={() => setIntro(true)}>
                What is this?
              </button>
            </>
          )}
        </p>
      </header>
      <main>
        {/* first: in CPU mode every part of the page reads as CPU mode */}
        <CpuMode />
        <LessonBanner />
        {/* under a lesson there is always a way to start its run: a paper lesson's own button, or the Start bar with the fixed set-up */}
        {shown('launcher') ? <StartBar knobsBelow={shown('newrun')} /> : !lesson && <StartBar fixed knobsBelow={false} />}
        {intro && <Intro onClose={() => setIntro(false)} />}
        <ChartWarmup />
        <DeviceAlerts />
        {!form && <AddressWarnings />}
        <LessonFocus.Provider value={focus}>
          <div className={form ? 'lab' : 'lab lab-wide'}>
            {form && <Launcher />}
            <div className="lab-main">
              <RunsPanel />
              <TrainingCharts />
              <EvaluationCharts />
              <CurriculumPanel />
              {shown('samples') && <SamplesPanel />}
            </div>
          </div>
        </LessonFocus.Provider>
        <Explorer />
        {(shown('adapter') || shown('selftest') || shown('demo')) && (
          <>
            <h2 className="section-title">Your GPU and the engine</h2>
            <div className="grid">
              {shown('adapter') && <AdapterPanel />}
              {shown('selftest') && <SelfTestPanel />}
              {shown('demo') && <DemoPanel />}
            </div>
          </>
        )}
      </main>
      <footer>
        <p>Everything runs locally: Web Workers (one per run) drive your GPU through WebGPU with the lab's own WGSL kernels. Nothing is uploaded.</p>
        <p data-testid="wake-lock" data-status={wake}>
          {WAKE_TEXT[wake]} Press <kbd>?</kbd> for keyboard shortcuts.
        </p>
        {debug && <DebugTools />}
      </footer>
      <HelpOverlay />
    </>
  );
}
