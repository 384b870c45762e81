// What the Node test consumers share, as a real consumer's own module would: the lab's placeholders taken as flags. Copied
// beside each consumer.
'use strict';

/**
 * The command line as an object: each --name value pair, and each of the bare switches as true (--no-inbox: noInbox). Exits 2
 * naming the first of the required flags that is missing.
 */
function args(required, switches = []) {
  const given = {};
  for (let i = 2; i < process.argv.length; i++) {
    const name = process.argv[i].slice(2);
    if (switches.includes(name)) given[name.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = true;
    else if (process.argv[i].startsWith('--')) given[name] = process.argv[++i];
  }
  for (const k of required) {
    if (!given[k]) { console.error(`--${k} is required`); process.exit(2); }
  }
  return given;
}

module.exports = { args };
