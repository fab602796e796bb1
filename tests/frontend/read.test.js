// The payload as the page and the widget carry it: JSON text, base64 of gzip, or bytes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

import { applyPatch, readPayload } from "../../explorer/present/frontend/src/model.js";

const doc = {
  format: 1,
  text: "é < ü — every byte value: " + String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)),
};
const packed = gzipSync(Buffer.from(JSON.stringify(doc), "utf-8"));

test("a page's gzip + base64 payload reads back to the same JSON, with and without the browser's base64 decoder", async () => {
  const b64 = packed.toString("base64");
  const had = Uint8Array.fromBase64;
  try {
    delete Uint8Array.fromBase64; // the plain loop
    assert.deepEqual(await readPayload(b64, "gzip+base64"), doc);
    Uint8Array.fromBase64 = (s) => new Uint8Array(Buffer.from(s, "base64")); // a decoder like the browser's
    assert.deepEqual(await readPayload(b64, "gzip+base64"), doc);
  } finally {
    if (had) Uint8Array.fromBase64 = had;
    else delete Uint8Array.fromBase64;
  }
});

test("a widget's bytes, gzipped or not, and plain JSON text read back the same", async () => {
  assert.deepEqual(await readPayload(new DataView(packed.buffer, packed.byteOffset, packed.byteLength), "gzip"), doc);
  const raw = Buffer.from(JSON.stringify(doc), "utf-8");
  assert.deepEqual(await readPayload(new DataView(raw.buffer, raw.byteOffset, raw.byteLength), "utf-8"), doc);
  assert.deepEqual(await readPayload(JSON.stringify(doc)), doc);
});

test("another rank written as a patch of a rank written in full reads back as that rank's payload", () => {
  const base = { header: { chips: [["rank", "1 of 4"]] }, views: [{ cid: "0/0", t: 1.5 }], gone: true };
  const ops = [[["header", "chips", 0, 1], "2 of 4"], [["views", 0, "t"], 2.25], [["gone"]], [["new"], { a: 1 }]];
  assert.deepEqual(applyPatch(structuredClone(base), ops), {
    header: { chips: [["rank", "2 of 4"]] },
    views: [{ cid: "0/0", t: 2.25 }],
    new: { a: 1 },
  });
});
