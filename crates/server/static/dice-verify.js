// The arithmetic of Davey Drehs' dice, redone in the browser so that a reader can check a
// finished game's rolls without trusting the server (docs/rules/drehs.md, "Dice"): the seed's
// commitment is its SHA-256, and die `index` of a game is drawn from HMAC-SHA256(seed,
// game_id ‖ index) as crates/rules/src/dice.rs draws it. WebCrypto only, no page: the replay
// page (replay.js) shows the results, and node runs the unit tests on the same code.

/**
 * Lower-case hexadecimal of bytes.
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {string}
 */
export const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The bytes of a hexadecimal text (the server's seeds).
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
export const unhex = (text) => new Uint8Array(text.match(/../g).map((h) => parseInt(h, 16)));

/**
 * The commitment published before the game: the hex SHA-256 of the seed.
 * @param {Uint8Array<ArrayBuffer>} seed
 * @returns {Promise<string>}
 */
export async function commitmentOf(seed) {
  return hex(await crypto.subtle.digest('SHA-256', seed));
}

/**
 * The seed as an HMAC-SHA256 key for `rollDie`.
 * @param {Uint8Array<ArrayBuffer>} seed
 * @returns {Promise<CryptoKey>}
 */
export function hmacKey(seed) {
  return crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/**
 * @param {CryptoKey} key
 * @param {Uint8Array<ArrayBuffer>} message
 * @returns {Promise<Uint8Array>}
 */
async function hmac(key, message) {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

/**
 * The value of die `index` with `sides` sides: the first of the four big-endian u64 words
 * of the MAC below 2^64 − (2^64 mod sides), reduced mod sides, plus one; if all four are
 * rejected, the next MACs add an attempt counter (u32 big-endian). Null after sixteen MACs
 * with no word to take (the server would go on), which a die of a few sides never meets: a
 * word is refused with a chance below sides / 2^64.
 * @param {CryptoKey} key `hmacKey(seed)`
 * @param {Uint8Array} gameIdBytes the game id in UTF-8
 * @param {number} index
 * @param {number} sides
 * @returns {Promise<number | null>}
 */
export async function rollDie(key, gameIdBytes, index, sides) {
  const n = BigInt(sides);
  const limit = (1n << 64n) - ((1n << 64n) % n);
  for (let attempt = 0; attempt < 16; attempt++) {
    const extra = attempt === 0 ? 0 : 4;
    const message = new Uint8Array(gameIdBytes.length + 8 + extra);
    message.set(gameIdBytes, 0);
    new DataView(message.buffer).setBigUint64(gameIdBytes.length, BigInt(index));
    if (attempt) new DataView(message.buffer).setUint32(gameIdBytes.length + 8, attempt);
    const mac = await hmac(key, message);
    const view = new DataView(mac.buffer);
    for (let w = 0; w < 4; w++) {
      const word = view.getBigUint64(w * 8);
      if (word < limit) return Number(word % n) + 1;
    }
  }
  return null;
}
