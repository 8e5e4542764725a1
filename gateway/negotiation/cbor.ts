// The CBOR codec (`application/cbor`, alpha behind the CBORServingAndStorage gate): only in the serializer table when
// the gate is on, so that without it CBOR bodies are a 415 and CBOR-only Accept headers a 406, exactly as on a
// server that never heard of CBOR. Like kube-apiserver, every body written starts with the self-described CBOR tag
// (bytes d9 d9 f7), and watch streams are `application/cbor-seq`: each event one such data item, back to back with
// no framing (RFC 8742). Reading rules are in cbor-decode.ts.
import { encode as cborgEncode, Token, Type, type EncodeOptions } from 'cborg';
import { decodeCbor } from './cbor-decode.js';
import type { Serializer } from './serializer.js';

export const CBOR_MEDIA_TYPE = 'application/cbor';
export const CBOR_SEQ_MEDIA_TYPE = 'application/cbor-seq';
/** Server-side apply bodies in CBOR; the other patch types have no CBOR form (415). */
export const APPLY_PATCH_CBOR_TYPE = 'application/apply-patch+cbor';

/** The head of tag 55799, written before every data item this server encodes. */
export const SELF_DESCRIBED_PREFIX = Buffer.from([0xd9, 0xd9, 0xf7]);

const ENCODE_OPTIONS: EncodeOptions = {
  // An absent field is left out as JSON.stringify leaves it out; `undefined` anywhere else is null, as in JSON.
  ignoreUndefinedProperties: true,
  typeEncoders: { undefined: () => new Token(Type.null, null) },
};

/** One self-described data item: the tag head, then the value. Keys come out in cborg's deterministic order. */
export function encodeCbor(value: unknown): Buffer {
  const item = cborgEncode(value ?? null, ENCODE_OPTIONS);
  const out = Buffer.allocUnsafe(SELF_DESCRIBED_PREFIX.length + item.length);
  SELF_DESCRIBED_PREFIX.copy(out, 0);
  out.set(item, SELF_DESCRIBED_PREFIX.length);
  return out;
}

export function createCborSerializer(): Serializer {
  return {
    mediaType: CBOR_MEDIA_TYPE,
    aliases: [],
    // kube-apiserver v1.32 serves PartialObjectMetadata in CBOR but not Tables (its endpoint restrictions left CBOR
    // out for them): `application/cbor;as=Table` is passed over like an unsupported type.
    tables: false,
    // Binary: `pretty` has no meaning.
    encode: (value) => encodeCbor(value),
    decode: (body) => decodeCbor(body),
    streamMediaType: CBOR_SEQ_MEDIA_TYPE,
    encodeWatchEvent: (event) => encodeCbor({ type: event.type, object: event.object }),
  } satisfies Serializer;
}
