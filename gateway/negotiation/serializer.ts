// A serializer turns bytes of one media type into plain JSON values and back. Decoding never loses information a
// validator needs: duplicate fields are reported (JSON.parse would silently keep the last one).

export interface DecodeResult {
  value: unknown;
  /** Paths of fields that appeared more than once in one object, e.g. `metadata.labels.app`, in document order. */
  duplicateFields: string[];
}

export interface Serializer {
  /** Canonical media type, e.g. `application/json`. */
  readonly mediaType: string;
  /** Other names accepted for the same codec (Content-Type and Accept). */
  readonly aliases: readonly string[];
  encode(value: unknown, opts?: { pretty?: boolean }): Buffer;
  /** Throws StatusError 400 naming the problem (line/offset) on malformed input. */
  decode(body: Buffer): DecodeResult;
  /** Media type of a watch stream in this encoding, and one framed event of it. */
  readonly streamMediaType: string;
  encodeWatchEvent(event: { type: string; object: unknown }): Buffer;
}

/** What the response should be: the serializer plus the transformation asked for with `as=`. */
export interface ResponseTarget {
  serializer: Serializer;
  /** `Table` (meta group/version in tableGroupVersion) or undefined for the object itself. */
  as?: 'Table';
  /** e.g. `meta.k8s.io/v1` or `meta.platform.io/v1`: echoed as the Table's apiVersion. */
  tableApiVersion?: string;
  /** The exact Content-Type header to answer with. */
  contentType: string;
}
