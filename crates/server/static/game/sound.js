// The game page's sounds, synthesised with WebAudio (no sound files to fetch): a move, a
// capture, check, the game's start and end, low time, and a dice attack's hit or miss. The
// mute switch is kept in the browser (localStorage). Every sound asked for is also listed in
// `asked`, played or not (muted, no audio device, a browser that has not let the page play
// sound yet), which the browser tests read as `window.oddboardSounds` to see which sounds the
// page meant to play.

import { showToTests } from '../test-hook.js';

const MUTED_KEY = 'oddboard.sound.muted';

/** @type {string[]} */
const asked = [];
showToTests('oddboardSounds', asked);

/** @type {AudioContext | null} */
let context = null;

/// Notes of each sound: [frequency Hz, start s, length s, wave, peak gain].
/** @type {Record<string, [number, number, number, OscillatorType, number][]>} */
const SOUNDS = {
  move: [[520, 0, 0.07, 'triangle', 0.35]],
  capture: [[300, 0, 0.09, 'square', 0.22], [180, 0.05, 0.12, 'triangle', 0.3]],
  check: [[880, 0, 0.09, 'square', 0.18], [1175, 0.1, 0.12, 'square', 0.18]],
  start: [[523, 0, 0.1, 'sine', 0.3], [659, 0.1, 0.1, 'sine', 0.3], [784, 0.2, 0.18, 'sine', 0.3]],
  end: [[784, 0, 0.12, 'sine', 0.3], [659, 0.12, 0.12, 'sine', 0.3], [523, 0.24, 0.25, 'sine', 0.3]],
  low_time: [[1000, 0, 0.08, 'sine', 0.25], [1000, 0.16, 0.08, 'sine', 0.25]],
  // Davey Drehs' to-hit roll (game/dice.js): a hit lands as a low thud under a sharp crack,
  // a miss slides away as a falling whistle, so the two are told apart without looking.
  hit: [[1400, 0, 0.03, 'square', 0.2], [140, 0.01, 0.18, 'triangle', 0.4]],
  miss: [[700, 0, 0.18, 'sine', 0.2], [420, 0.08, 0.16, 'sine', 0.15]],
};

export function muted() {
  try { return localStorage.getItem(MUTED_KEY) === '1'; } catch (_) { return false; }
}

/** @param {boolean} value */
export function setMuted(value) {
  try {
    if (value) localStorage.setItem(MUTED_KEY, '1');
    else localStorage.removeItem(MUTED_KEY);
  } catch (_) { /* storage refused (private mode): the switch holds for this page only */ }
}

function audio() {
  if (context) return context;
  // Safari before 14.1 names it with its prefix.
  const Context = window.AudioContext
    || /** @type {{ webkitAudioContext?: typeof AudioContext }} */ (/** @type {unknown} */ (window)).webkitAudioContext;
  if (!Context) return null;
  try { context = new Context(); } catch (_) { return null; }
  return context;
}

/// Browsers start audio suspended until the page is clicked or a key is pressed: the first
/// such gesture wakes it, so that the next sound is heard.
function wake() {
  const ctx = audio();
  if (ctx && ctx.state === 'suspended') ctx.resume().catch(() => {});
}
for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, wake, { once: true, capture: true });

/// Plays the named sound (one of `SOUNDS`), unless muted.
/** @param {string} name */
export function play(name) {
  asked.push(name);
  if (muted() || !SOUNDS[name]) return;
  const ctx = audio();
  if (!ctx || ctx.state !== 'running') return;
  const now = ctx.currentTime;
  for (const [freq, start, length, wave, peak] of SOUNDS[name]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    // A quick attack and an exponential fall: a click, not a beep that starts with a pop.
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(peak, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
}

/// Wires a button to the mute switch. Its text says what a press does ("Turn sound off",
/// "Turn sound on"), as chat's switch beside it does ("Turn chat off"): read side by side, a
/// state on one and an action on the other left "Sound on" ambiguous. No aria-pressed: a
/// toggle's pressed state goes with a label that stays the same, and this one changes (a
/// reader would hear "Turn sound on, pressed"); its name is its text, as chat's is.
/** @param {HTMLButtonElement} button */
export function wireSoundToggle(button) {
  const show = () => {
    button.textContent = muted() ? 'Turn sound on' : 'Turn sound off';
  };
  button.addEventListener('click', () => {
    setMuted(!muted());
    show();
    wake();
  });
  show();
}
