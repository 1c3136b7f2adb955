// The messages between the page and its Python, as tools/page/protocol.py writes them down:
// the site build puts its FAMILIES here, in place of the placeholder below
// (tools/site/runtime.py, protocol_script), so there is no second copy to keep by hand.
//
// bookProtocol.check(family, message) returns the message if it is one of the family's
// kinds, with every field its kind needs and no other; else it throws an Error that names
// the family, the kind and the field (the same rules and wording as protocol.py's check).
// A classic script in the page (before notebook.js, which checks what the worker posts
// and what it posts to the worker), and a module imported by worker.js (which checks what
// the page posts): `self` is the window in one, the worker in the other.

(function () {
  "use strict";

  const FAMILIES = /* the site build writes tools/page/protocol.py's FAMILIES here */ null;
  const RECORD = "";

  const list = (names) => names.join(", ");
  const has = (object, name) => Object.hasOwn(object, name);
  const shown = (value) => String(JSON.stringify(value)).slice(0, 80);

  function check(family, message) {
    const known = FAMILIES?.[family];
    if (!known) throw new Error(`protocol: no family ${shown(family)}`);
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      throw new Error(`${family}: a message is a JSON object, not ${shown(message)}`);
    }
    const kinds = Object.keys(known.kinds);
    let kind;
    if (known.key === RECORD) kind = RECORD;
    else if (known.key === null) {
      const named = kinds.filter((k) => has(message, k));
      if (named.length !== 1) {
        throw new Error(
          `${family}: a message has one of the fields ${list(kinds)} to name its kind; this one ` +
            `has ${named.length ? named.join(", ") : "none"} (its fields: ${list(Object.keys(message))})`,
        );
      }
      kind = named[0];
    } else {
      kind = has(message, known.key) ? message[known.key] : null;
      if (typeof kind !== "string" || !has(known.kinds, kind)) {
        throw new Error(`${family}: unknown kind ${known.key}=${shown(kind)} (known: ${list(kinds)})`);
      }
    }
    const spec = known.kinds[kind];
    const what = kind ? `${family} '${kind}'` : family;
    const allowed = new Set([...spec.fields, ...spec.optional]);
    if (known.key) allowed.add(known.key);
    for (const name of spec.fields) {
      if (!has(message, name)) throw new Error(`${what}: missing field '${name}'`);
    }
    for (const name of Object.keys(message)) {
      if (!allowed.has(name)) throw new Error(`${what}: unknown field '${name}'`);
    }
    for (const [name, inner] of Object.entries(spec.inner)) {
      if (!has(message, name)) continue;
      let value = message[name];
      if (typeof value === "string") {
        try {
          value = JSON.parse(value);
        } catch {
          throw new Error(`${what}: field '${name}' is not JSON text`);
        }
      }
      for (const one of Array.isArray(value) ? value : [value]) {
        try {
          check(inner, one);
        } catch (error) {
          throw new Error(`${what}, in '${name}': ${error.message}`);
        }
      }
    }
    return message;
  }

  self.bookProtocol = { FAMILIES, check };
})();
