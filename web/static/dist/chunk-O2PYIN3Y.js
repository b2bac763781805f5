// static/vendor/msgpack/utils/prettyByte.mjs
function prettyByte(byte) {
  return `${byte < 0 ? "-" : ""}0x${Math.abs(byte).toString(16).padStart(2, "0")}`;
}

// static/vendor/msgpack/ExtData.mjs
var ExtData = class {
  type;
  data;
  constructor(type, data) {
    this.type = type;
    this.data = data;
  }
};

// static/vendor/msgpack/DecodeError.mjs
var DecodeError = class _DecodeError extends Error {
  constructor(message) {
    super(message);
    const proto = Object.create(_DecodeError.prototype);
    Object.setPrototypeOf(this, proto);
    Object.defineProperty(this, "name", {
      configurable: true,
      enumerable: false,
      value: _DecodeError.name
    });
  }
};

// static/vendor/msgpack/utils/int.mjs
var UINT32_MAX = 4294967295;
function setInt64(view, offset, value) {
  const high = Math.floor(value / 4294967296);
  const low = value;
  view.setUint32(offset, high);
  view.setUint32(offset + 4, low);
}
function getInt64(view, offset) {
  const high = view.getInt32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}
function getUint64(view, offset) {
  const high = view.getUint32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}

// static/vendor/msgpack/timestamp.mjs
var EXT_TIMESTAMP = -1;
var TIMESTAMP32_MAX_SEC = 4294967296 - 1;
var TIMESTAMP64_MAX_SEC = 17179869184 - 1;
function encodeTimeSpecToTimestamp({ sec, nsec }) {
  if (sec >= 0 && nsec >= 0 && sec <= TIMESTAMP64_MAX_SEC) {
    if (nsec === 0 && sec <= TIMESTAMP32_MAX_SEC) {
      const rv = new Uint8Array(4);
      const view = new DataView(rv.buffer);
      view.setUint32(0, sec);
      return rv;
    } else {
      const secHigh = sec / 4294967296;
      const secLow = sec & 4294967295;
      const rv = new Uint8Array(8);
      const view = new DataView(rv.buffer);
      view.setUint32(0, nsec << 2 | secHigh & 3);
      view.setUint32(4, secLow);
      return rv;
    }
  } else {
    const rv = new Uint8Array(12);
    const view = new DataView(rv.buffer);
    view.setUint32(0, nsec);
    setInt64(view, 4, sec);
    return rv;
  }
}
function encodeDateToTimeSpec(date) {
  const msec = date.getTime();
  const sec = Math.floor(msec / 1e3);
  const nsec = (msec - sec * 1e3) * 1e6;
  const nsecInSec = Math.floor(nsec / 1e9);
  return {
    sec: sec + nsecInSec,
    nsec: nsec - nsecInSec * 1e9
  };
}
function encodeTimestampExtension(object) {
  if (object instanceof Date) {
    const timeSpec = encodeDateToTimeSpec(object);
    return encodeTimeSpecToTimestamp(timeSpec);
  } else {
    return null;
  }
}
function decodeTimestampToTimeSpec(data) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  switch (data.byteLength) {
    case 4: {
      const sec = view.getUint32(0);
      const nsec = 0;
      return { sec, nsec };
    }
    case 8: {
      const nsec30AndSecHigh2 = view.getUint32(0);
      const secLow32 = view.getUint32(4);
      const sec = (nsec30AndSecHigh2 & 3) * 4294967296 + secLow32;
      const nsec = nsec30AndSecHigh2 >>> 2;
      return { sec, nsec };
    }
    case 12: {
      const sec = getInt64(view, 4);
      const nsec = view.getUint32(0);
      return { sec, nsec };
    }
    default:
      throw new DecodeError(`Unrecognized data size for timestamp (expected 4, 8, or 12): ${data.length}`);
  }
}
function decodeTimestampExtension(data) {
  const timeSpec = decodeTimestampToTimeSpec(data);
  return new Date(timeSpec.sec * 1e3 + timeSpec.nsec / 1e6);
}
var timestampExtension = {
  type: EXT_TIMESTAMP,
  encode: encodeTimestampExtension,
  decode: decodeTimestampExtension
};

// static/vendor/msgpack/ExtensionCodec.mjs
var ExtensionCodec = class _ExtensionCodec {
  static defaultCodec = new _ExtensionCodec();
  // ensures ExtensionCodecType<X> matches ExtensionCodec<X>
  // this will make type errors a lot more clear
  // eslint-disable-next-line @typescript-eslint/naming-convention
  __brand;
  // built-in extensions
  builtInEncoders = [];
  builtInDecoders = [];
  // custom extensions
  encoders = [];
  decoders = [];
  constructor() {
    this.register(timestampExtension);
  }
  register({ type, encode, decode }) {
    if (type >= 0) {
      this.encoders[type] = encode;
      this.decoders[type] = decode;
    } else {
      const index = -1 - type;
      this.builtInEncoders[index] = encode;
      this.builtInDecoders[index] = decode;
    }
  }
  tryToEncode(object, context) {
    for (let i = 0; i < this.builtInEncoders.length; i++) {
      const encodeExt = this.builtInEncoders[i];
      if (encodeExt != null) {
        const data = encodeExt(object, context);
        if (data != null) {
          const type = -1 - i;
          return new ExtData(type, data);
        }
      }
    }
    for (let i = 0; i < this.encoders.length; i++) {
      const encodeExt = this.encoders[i];
      if (encodeExt != null) {
        const data = encodeExt(object, context);
        if (data != null) {
          const type = i;
          return new ExtData(type, data);
        }
      }
    }
    if (object instanceof ExtData) {
      return object;
    }
    return null;
  }
  decode(data, type, context) {
    const decodeExt = type < 0 ? this.builtInDecoders[-1 - type] : this.decoders[type];
    if (decodeExt) {
      return decodeExt(data, type, context);
    } else {
      return new ExtData(type, data);
    }
  }
};

// static/vendor/msgpack/utils/utf8.mjs
var sharedTextEncoder = new TextEncoder();
var CHUNK_SIZE = 4096;
function utf8DecodeJs(bytes, inputOffset, byteLength) {
  let offset = inputOffset;
  const end = offset + byteLength;
  const units = [];
  let result = "";
  while (offset < end) {
    const byte1 = bytes[offset++];
    if ((byte1 & 128) === 0) {
      units.push(byte1);
    } else if ((byte1 & 224) === 192) {
      const byte2 = bytes[offset++] & 63;
      units.push((byte1 & 31) << 6 | byte2);
    } else if ((byte1 & 240) === 224) {
      const byte2 = bytes[offset++] & 63;
      const byte3 = bytes[offset++] & 63;
      units.push((byte1 & 31) << 12 | byte2 << 6 | byte3);
    } else if ((byte1 & 248) === 240) {
      const byte2 = bytes[offset++] & 63;
      const byte3 = bytes[offset++] & 63;
      const byte4 = bytes[offset++] & 63;
      let unit = (byte1 & 7) << 18 | byte2 << 12 | byte3 << 6 | byte4;
      if (unit > 65535) {
        unit -= 65536;
        units.push(unit >>> 10 & 1023 | 55296);
        unit = 56320 | unit & 1023;
      }
      units.push(unit);
    } else {
      units.push(byte1);
    }
    if (units.length >= CHUNK_SIZE) {
      result += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  if (units.length > 0) {
    result += String.fromCharCode(...units);
  }
  return result;
}
var sharedTextDecoder = new TextDecoder();
var TEXT_DECODER_THRESHOLD = 200;
function utf8DecodeTD(bytes, inputOffset, byteLength) {
  const stringBytes = bytes.subarray(inputOffset, inputOffset + byteLength);
  return sharedTextDecoder.decode(stringBytes);
}
function utf8Decode(bytes, inputOffset, byteLength) {
  if (byteLength > TEXT_DECODER_THRESHOLD) {
    return utf8DecodeTD(bytes, inputOffset, byteLength);
  } else {
    return utf8DecodeJs(bytes, inputOffset, byteLength);
  }
}

// static/vendor/msgpack/utils/typedArrays.mjs
function isArrayBufferLike(buffer) {
  return buffer instanceof ArrayBuffer || typeof SharedArrayBuffer !== "undefined" && buffer instanceof SharedArrayBuffer;
}
function ensureUint8Array(buffer) {
  if (buffer instanceof Uint8Array) {
    return buffer;
  } else if (ArrayBuffer.isView(buffer)) {
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } else if (isArrayBufferLike(buffer)) {
    return new Uint8Array(buffer);
  } else {
    return Uint8Array.from(buffer);
  }
}

// static/vendor/msgpack/CachedKeyDecoder.mjs
var DEFAULT_MAX_KEY_LENGTH = 16;
var DEFAULT_MAX_LENGTH_PER_KEY = 16;
var CachedKeyDecoder = class {
  hit = 0;
  miss = 0;
  caches;
  maxKeyLength;
  maxLengthPerKey;
  constructor(maxKeyLength = DEFAULT_MAX_KEY_LENGTH, maxLengthPerKey = DEFAULT_MAX_LENGTH_PER_KEY) {
    this.maxKeyLength = maxKeyLength;
    this.maxLengthPerKey = maxLengthPerKey;
    this.caches = [];
    for (let i = 0; i < this.maxKeyLength; i++) {
      this.caches.push([]);
    }
  }
  canBeCached(byteLength) {
    return byteLength > 0 && byteLength <= this.maxKeyLength;
  }
  find(bytes, inputOffset, byteLength) {
    const records = this.caches[byteLength - 1];
    FIND_CHUNK: for (const record of records) {
      const recordBytes = record.bytes;
      for (let j = 0; j < byteLength; j++) {
        if (recordBytes[j] !== bytes[inputOffset + j]) {
          continue FIND_CHUNK;
        }
      }
      return record.str;
    }
    return null;
  }
  store(bytes, value) {
    const records = this.caches[bytes.length - 1];
    const record = { bytes, str: value };
    if (records.length >= this.maxLengthPerKey) {
      records[Math.random() * records.length | 0] = record;
    } else {
      records.push(record);
    }
  }
  decode(bytes, inputOffset, byteLength) {
    const cachedValue = this.find(bytes, inputOffset, byteLength);
    if (cachedValue != null) {
      this.hit++;
      return cachedValue;
    }
    this.miss++;
    const str = utf8DecodeJs(bytes, inputOffset, byteLength);
    const slicedCopyOfBytes = Uint8Array.prototype.slice.call(bytes, inputOffset, inputOffset + byteLength);
    this.store(slicedCopyOfBytes, str);
    return str;
  }
};

// static/vendor/msgpack/Decoder.mjs
var STATE_ARRAY = "array";
var STATE_MAP_KEY = "map_key";
var STATE_MAP_VALUE = "map_value";
var mapKeyConverter = (key) => {
  if (typeof key === "string" || typeof key === "number") {
    return key;
  }
  throw new DecodeError("The type of key must be string or number but " + typeof key);
};
var StackPool = class {
  stack = [];
  stackHeadPosition = -1;
  get length() {
    return this.stackHeadPosition + 1;
  }
  top() {
    return this.stack[this.stackHeadPosition];
  }
  pushArrayState(size) {
    const state = this.getUninitializedStateFromPool();
    state.type = STATE_ARRAY;
    state.position = 0;
    state.size = size;
    state.array = new Array(size);
  }
  pushMapState(size) {
    const state = this.getUninitializedStateFromPool();
    state.type = STATE_MAP_KEY;
    state.readCount = 0;
    state.size = size;
    state.map = {};
  }
  getUninitializedStateFromPool() {
    this.stackHeadPosition++;
    if (this.stackHeadPosition === this.stack.length) {
      const partialState = {
        type: void 0,
        size: 0,
        array: void 0,
        position: 0,
        readCount: 0,
        map: void 0,
        key: null
      };
      this.stack.push(partialState);
    }
    return this.stack[this.stackHeadPosition];
  }
  release(state) {
    const topStackState = this.stack[this.stackHeadPosition];
    if (topStackState !== state) {
      throw new Error("Invalid stack state. Released state is not on top of the stack.");
    }
    if (state.type === STATE_ARRAY) {
      const partialState = state;
      partialState.size = 0;
      partialState.array = void 0;
      partialState.position = 0;
      partialState.type = void 0;
    }
    if (state.type === STATE_MAP_KEY || state.type === STATE_MAP_VALUE) {
      const partialState = state;
      partialState.size = 0;
      partialState.map = void 0;
      partialState.readCount = 0;
      partialState.type = void 0;
    }
    this.stackHeadPosition--;
  }
  reset() {
    this.stack.length = 0;
    this.stackHeadPosition = -1;
  }
};
var HEAD_BYTE_REQUIRED = -1;
var EMPTY_VIEW = new DataView(new ArrayBuffer(0));
var EMPTY_BYTES = new Uint8Array(EMPTY_VIEW.buffer);
try {
  EMPTY_VIEW.getInt8(0);
} catch (e) {
  if (!(e instanceof RangeError)) {
    throw new Error("This module is not supported in the current JavaScript engine because DataView does not throw RangeError on out-of-bounds access");
  }
}
var MORE_DATA = new RangeError("Insufficient data");
var sharedCachedKeyDecoder = new CachedKeyDecoder();
var Decoder = class _Decoder {
  extensionCodec;
  context;
  useBigInt64;
  rawStrings;
  maxStrLength;
  maxBinLength;
  maxArrayLength;
  maxMapLength;
  maxExtLength;
  keyDecoder;
  mapKeyConverter;
  totalPos = 0;
  pos = 0;
  view = EMPTY_VIEW;
  bytes = EMPTY_BYTES;
  headByte = HEAD_BYTE_REQUIRED;
  stack = new StackPool();
  entered = false;
  constructor(options) {
    this.extensionCodec = options?.extensionCodec ?? ExtensionCodec.defaultCodec;
    this.context = options?.context;
    this.useBigInt64 = options?.useBigInt64 ?? false;
    this.rawStrings = options?.rawStrings ?? false;
    this.maxStrLength = options?.maxStrLength ?? UINT32_MAX;
    this.maxBinLength = options?.maxBinLength ?? UINT32_MAX;
    this.maxArrayLength = options?.maxArrayLength ?? UINT32_MAX;
    this.maxMapLength = options?.maxMapLength ?? UINT32_MAX;
    this.maxExtLength = options?.maxExtLength ?? UINT32_MAX;
    this.keyDecoder = options?.keyDecoder !== void 0 ? options.keyDecoder : sharedCachedKeyDecoder;
    this.mapKeyConverter = options?.mapKeyConverter ?? mapKeyConverter;
  }
  clone() {
    return new _Decoder({
      extensionCodec: this.extensionCodec,
      context: this.context,
      useBigInt64: this.useBigInt64,
      rawStrings: this.rawStrings,
      maxStrLength: this.maxStrLength,
      maxBinLength: this.maxBinLength,
      maxArrayLength: this.maxArrayLength,
      maxMapLength: this.maxMapLength,
      maxExtLength: this.maxExtLength,
      keyDecoder: this.keyDecoder
    });
  }
  reinitializeState() {
    this.totalPos = 0;
    this.headByte = HEAD_BYTE_REQUIRED;
    this.stack.reset();
  }
  setBuffer(buffer) {
    const bytes = ensureUint8Array(buffer);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }
  appendBuffer(buffer) {
    if (this.headByte === HEAD_BYTE_REQUIRED && !this.hasRemaining(1)) {
      this.setBuffer(buffer);
    } else {
      const remainingData = this.bytes.subarray(this.pos);
      const newData = ensureUint8Array(buffer);
      const newBuffer = new Uint8Array(remainingData.length + newData.length);
      newBuffer.set(remainingData);
      newBuffer.set(newData, remainingData.length);
      this.setBuffer(newBuffer);
    }
  }
  hasRemaining(size) {
    return this.view.byteLength - this.pos >= size;
  }
  createExtraByteError(posToShow) {
    const { view, pos } = this;
    return new RangeError(`Extra ${view.byteLength - pos} of ${view.byteLength} byte(s) found at buffer[${posToShow}]`);
  }
  /**
   * @throws {@link DecodeError}
   * @throws {@link RangeError}
   */
  decode(buffer) {
    if (this.entered) {
      const instance = this.clone();
      return instance.decode(buffer);
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.setBuffer(buffer);
      const object = this.doDecodeSync();
      if (this.hasRemaining(1)) {
        throw this.createExtraByteError(this.pos);
      }
      return object;
    } finally {
      this.entered = false;
    }
  }
  *decodeMulti(buffer) {
    if (this.entered) {
      const instance = this.clone();
      yield* instance.decodeMulti(buffer);
      return;
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.setBuffer(buffer);
      while (this.hasRemaining(1)) {
        yield this.doDecodeSync();
      }
    } finally {
      this.entered = false;
    }
  }
  async decodeAsync(stream) {
    if (this.entered) {
      const instance = this.clone();
      return instance.decodeAsync(stream);
    }
    try {
      this.entered = true;
      let decoded = false;
      let object;
      for await (const buffer of stream) {
        if (decoded) {
          this.entered = false;
          throw this.createExtraByteError(this.totalPos);
        }
        this.appendBuffer(buffer);
        try {
          object = this.doDecodeSync();
          decoded = true;
        } catch (e) {
          if (!(e instanceof RangeError)) {
            throw e;
          }
        }
        this.totalPos += this.pos;
      }
      if (decoded) {
        if (this.hasRemaining(1)) {
          throw this.createExtraByteError(this.totalPos);
        }
        return object;
      }
      const { headByte, pos, totalPos } = this;
      throw new RangeError(`Insufficient data in parsing ${prettyByte(headByte)} at ${totalPos} (${pos} in the current buffer)`);
    } finally {
      this.entered = false;
    }
  }
  decodeArrayStream(stream) {
    return this.decodeMultiAsync(stream, true);
  }
  decodeStream(stream) {
    return this.decodeMultiAsync(stream, false);
  }
  async *decodeMultiAsync(stream, isArray) {
    if (this.entered) {
      const instance = this.clone();
      yield* instance.decodeMultiAsync(stream, isArray);
      return;
    }
    try {
      this.entered = true;
      let isArrayHeaderRequired = isArray;
      let arrayItemsLeft = -1;
      for await (const buffer of stream) {
        if (isArray && arrayItemsLeft === 0) {
          throw this.createExtraByteError(this.totalPos);
        }
        this.appendBuffer(buffer);
        if (isArrayHeaderRequired) {
          arrayItemsLeft = this.readArraySize();
          isArrayHeaderRequired = false;
          this.complete();
        }
        try {
          while (true) {
            yield this.doDecodeSync();
            if (--arrayItemsLeft === 0) {
              break;
            }
          }
        } catch (e) {
          if (!(e instanceof RangeError)) {
            throw e;
          }
        }
        this.totalPos += this.pos;
      }
    } finally {
      this.entered = false;
    }
  }
  doDecodeSync() {
    DECODE: while (true) {
      const headByte = this.readHeadByte();
      let object;
      if (headByte >= 224) {
        object = headByte - 256;
      } else if (headByte < 192) {
        if (headByte < 128) {
          object = headByte;
        } else if (headByte < 144) {
          const size = headByte - 128;
          if (size !== 0) {
            this.pushMapState(size);
            this.complete();
            continue DECODE;
          } else {
            object = {};
          }
        } else if (headByte < 160) {
          const size = headByte - 144;
          if (size !== 0) {
            this.pushArrayState(size);
            this.complete();
            continue DECODE;
          } else {
            object = [];
          }
        } else {
          const byteLength = headByte - 160;
          object = this.decodeString(byteLength, 0);
        }
      } else if (headByte === 192) {
        object = null;
      } else if (headByte === 194) {
        object = false;
      } else if (headByte === 195) {
        object = true;
      } else if (headByte === 202) {
        object = this.readF32();
      } else if (headByte === 203) {
        object = this.readF64();
      } else if (headByte === 204) {
        object = this.readU8();
      } else if (headByte === 205) {
        object = this.readU16();
      } else if (headByte === 206) {
        object = this.readU32();
      } else if (headByte === 207) {
        if (this.useBigInt64) {
          object = this.readU64AsBigInt();
        } else {
          object = this.readU64();
        }
      } else if (headByte === 208) {
        object = this.readI8();
      } else if (headByte === 209) {
        object = this.readI16();
      } else if (headByte === 210) {
        object = this.readI32();
      } else if (headByte === 211) {
        if (this.useBigInt64) {
          object = this.readI64AsBigInt();
        } else {
          object = this.readI64();
        }
      } else if (headByte === 217) {
        const byteLength = this.lookU8();
        object = this.decodeString(byteLength, 1);
      } else if (headByte === 218) {
        const byteLength = this.lookU16();
        object = this.decodeString(byteLength, 2);
      } else if (headByte === 219) {
        const byteLength = this.lookU32();
        object = this.decodeString(byteLength, 4);
      } else if (headByte === 220) {
        const size = this.readU16();
        if (size !== 0) {
          this.pushArrayState(size);
          this.complete();
          continue DECODE;
        } else {
          object = [];
        }
      } else if (headByte === 221) {
        const size = this.readU32();
        if (size !== 0) {
          this.pushArrayState(size);
          this.complete();
          continue DECODE;
        } else {
          object = [];
        }
      } else if (headByte === 222) {
        const size = this.readU16();
        if (size !== 0) {
          this.pushMapState(size);
          this.complete();
          continue DECODE;
        } else {
          object = {};
        }
      } else if (headByte === 223) {
        const size = this.readU32();
        if (size !== 0) {
          this.pushMapState(size);
          this.complete();
          continue DECODE;
        } else {
          object = {};
        }
      } else if (headByte === 196) {
        const size = this.lookU8();
        object = this.decodeBinary(size, 1);
      } else if (headByte === 197) {
        const size = this.lookU16();
        object = this.decodeBinary(size, 2);
      } else if (headByte === 198) {
        const size = this.lookU32();
        object = this.decodeBinary(size, 4);
      } else if (headByte === 212) {
        object = this.decodeExtension(1, 0);
      } else if (headByte === 213) {
        object = this.decodeExtension(2, 0);
      } else if (headByte === 214) {
        object = this.decodeExtension(4, 0);
      } else if (headByte === 215) {
        object = this.decodeExtension(8, 0);
      } else if (headByte === 216) {
        object = this.decodeExtension(16, 0);
      } else if (headByte === 199) {
        const size = this.lookU8();
        object = this.decodeExtension(size, 1);
      } else if (headByte === 200) {
        const size = this.lookU16();
        object = this.decodeExtension(size, 2);
      } else if (headByte === 201) {
        const size = this.lookU32();
        object = this.decodeExtension(size, 4);
      } else {
        throw new DecodeError(`Unrecognized type byte: ${prettyByte(headByte)}`);
      }
      this.complete();
      const stack = this.stack;
      while (stack.length > 0) {
        const state = stack.top();
        if (state.type === STATE_ARRAY) {
          state.array[state.position] = object;
          state.position++;
          if (state.position === state.size) {
            object = state.array;
            stack.release(state);
          } else {
            continue DECODE;
          }
        } else if (state.type === STATE_MAP_KEY) {
          if (object === "__proto__") {
            throw new DecodeError("The key __proto__ is not allowed");
          }
          state.key = this.mapKeyConverter(object);
          state.type = STATE_MAP_VALUE;
          continue DECODE;
        } else {
          state.map[state.key] = object;
          state.readCount++;
          if (state.readCount === state.size) {
            object = state.map;
            stack.release(state);
          } else {
            state.key = null;
            state.type = STATE_MAP_KEY;
            continue DECODE;
          }
        }
      }
      return object;
    }
  }
  readHeadByte() {
    if (this.headByte === HEAD_BYTE_REQUIRED) {
      this.headByte = this.readU8();
    }
    return this.headByte;
  }
  complete() {
    this.headByte = HEAD_BYTE_REQUIRED;
  }
  readArraySize() {
    const headByte = this.readHeadByte();
    switch (headByte) {
      case 220:
        return this.readU16();
      case 221:
        return this.readU32();
      default: {
        if (headByte < 160) {
          return headByte - 144;
        } else {
          throw new DecodeError(`Unrecognized array type byte: ${prettyByte(headByte)}`);
        }
      }
    }
  }
  pushMapState(size) {
    if (size > this.maxMapLength) {
      throw new DecodeError(`Max length exceeded: map length (${size}) > maxMapLengthLength (${this.maxMapLength})`);
    }
    this.stack.pushMapState(size);
  }
  pushArrayState(size) {
    if (size > this.maxArrayLength) {
      throw new DecodeError(`Max length exceeded: array length (${size}) > maxArrayLength (${this.maxArrayLength})`);
    }
    this.stack.pushArrayState(size);
  }
  decodeString(byteLength, headerOffset) {
    if (!this.rawStrings || this.stateIsMapKey()) {
      return this.decodeUtf8String(byteLength, headerOffset);
    }
    return this.decodeBinary(byteLength, headerOffset);
  }
  /**
   * @throws {@link RangeError}
   */
  decodeUtf8String(byteLength, headerOffset) {
    if (byteLength > this.maxStrLength) {
      throw new DecodeError(`Max length exceeded: UTF-8 byte length (${byteLength}) > maxStrLength (${this.maxStrLength})`);
    }
    if (this.bytes.byteLength < this.pos + headerOffset + byteLength) {
      throw MORE_DATA;
    }
    const offset = this.pos + headerOffset;
    let object;
    if (this.stateIsMapKey() && this.keyDecoder?.canBeCached(byteLength)) {
      object = this.keyDecoder.decode(this.bytes, offset, byteLength);
    } else {
      object = utf8Decode(this.bytes, offset, byteLength);
    }
    this.pos += headerOffset + byteLength;
    return object;
  }
  stateIsMapKey() {
    if (this.stack.length > 0) {
      const state = this.stack.top();
      return state.type === STATE_MAP_KEY;
    }
    return false;
  }
  /**
   * @throws {@link RangeError}
   */
  decodeBinary(byteLength, headOffset) {
    if (byteLength > this.maxBinLength) {
      throw new DecodeError(`Max length exceeded: bin length (${byteLength}) > maxBinLength (${this.maxBinLength})`);
    }
    if (!this.hasRemaining(byteLength + headOffset)) {
      throw MORE_DATA;
    }
    const offset = this.pos + headOffset;
    const object = this.bytes.subarray(offset, offset + byteLength);
    this.pos += headOffset + byteLength;
    return object;
  }
  decodeExtension(size, headOffset) {
    if (size > this.maxExtLength) {
      throw new DecodeError(`Max length exceeded: ext length (${size}) > maxExtLength (${this.maxExtLength})`);
    }
    const extType = this.view.getInt8(this.pos + headOffset);
    const data = this.decodeBinary(
      size,
      headOffset + 1
      /* extType */
    );
    return this.extensionCodec.decode(data, extType, this.context);
  }
  lookU8() {
    return this.view.getUint8(this.pos);
  }
  lookU16() {
    return this.view.getUint16(this.pos);
  }
  lookU32() {
    return this.view.getUint32(this.pos);
  }
  readU8() {
    const value = this.view.getUint8(this.pos);
    this.pos++;
    return value;
  }
  readI8() {
    const value = this.view.getInt8(this.pos);
    this.pos++;
    return value;
  }
  readU16() {
    const value = this.view.getUint16(this.pos);
    this.pos += 2;
    return value;
  }
  readI16() {
    const value = this.view.getInt16(this.pos);
    this.pos += 2;
    return value;
  }
  readU32() {
    const value = this.view.getUint32(this.pos);
    this.pos += 4;
    return value;
  }
  readI32() {
    const value = this.view.getInt32(this.pos);
    this.pos += 4;
    return value;
  }
  readU64() {
    const value = getUint64(this.view, this.pos);
    this.pos += 8;
    return value;
  }
  readI64() {
    const value = getInt64(this.view, this.pos);
    this.pos += 8;
    return value;
  }
  readU64AsBigInt() {
    const value = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return value;
  }
  readI64AsBigInt() {
    const value = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return value;
  }
  readF32() {
    const value = this.view.getFloat32(this.pos);
    this.pos += 4;
    return value;
  }
  readF64() {
    const value = this.view.getFloat64(this.pos);
    this.pos += 8;
    return value;
  }
};

// static/vendor/msgpack/utils/stream.mjs
function isAsyncIterable(object) {
  return object[Symbol.asyncIterator] != null;
}
async function* asyncIterableFromStream(stream) {
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) {
        return;
      }
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
function ensureAsyncIterable(streamLike) {
  if (isAsyncIterable(streamLike)) {
    return streamLike;
  } else {
    return asyncIterableFromStream(streamLike);
  }
}

// static/vendor/msgpack/decodeAsync.mjs
function decodeMultiStream(streamLike, options) {
  const stream = ensureAsyncIterable(streamLike);
  const decoder = new Decoder(options);
  return decoder.decodeStream(stream);
}

// static/replay.js
var FORMAT = "foray-replay";
var VERSIONS = [1, 2, 3];
var MEMORY_VERSION = 3;
var KEYFRAME_INTERVAL = 20;
var WORKER = 1;
var SOLDIER = 2;
var DIRECTION_DELTAS = [
  [0, 0],
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0]
];
var DECODE_LIMITS = {
  maxStrLength: 4096,
  maxBinLength: 4096,
  maxArrayLength: 2 * 64 * 64,
  maxMapLength: 32,
  maxExtLength: 0
};
var ReplayError = class extends Error {
  constructor(message, tick = null) {
    super(message);
    this.name = "ReplayError";
    this.tick = tick;
  }
};
var Unit = class {
  constructor(id, kind, x, y, hp, carry) {
    this.id = id;
    this.kind = kind;
    this.x = x;
    this.y = y;
    this.hp = hp;
    this.carry = carry;
  }
};
var State = class _State {
  constructor(tick, units, colonyHp, banked, energy, ore) {
    this.tick = tick;
    this.units = units;
    this.colonyHp = colonyHp;
    this.banked = banked;
    this.energy = energy;
    this.ore = ore;
  }
  clone() {
    const units = this.units.map(
      (side) => new Map([...side].map(([id, u]) => [id, new Unit(id, u.kind, u.x, u.y, u.hp, u.carry)]))
    );
    return new _State(this.tick, units, this.colonyHp, this.banked, this.energy, this.ore.slice());
  }
  /** The shape of Python's replays.FrameState, for comparing the two. */
  toPlain() {
    return {
      tick: this.tick,
      units: this.units.map((side) => [...side.values()].map((u) => [u.id, u.kind, u.x, u.y, u.hp, u.carry])),
      colony_hp: [...this.colonyHp],
      banked: [...this.banked],
      energy: [...this.energy],
      ore: Array.from(this.ore)
    };
  }
};
function misfit(tick, path, message) {
  return new ReplayError(`frame of tick ${tick}: field '${path}': ${message}`, tick);
}
function isForfeitFrame(frame) {
  return !("k" in frame);
}
var Replay = class {
  constructor(header) {
    if (header === null || typeof header !== "object" || header.type !== "header") {
      throw new ReplayError("the stream does not start with a replay header");
    }
    if (header.format !== FORMAT) {
      throw new ReplayError(`header: format ${JSON.stringify(header.format)} is not ${FORMAT}`);
    }
    if (!VERSIONS.includes(header.version)) {
      throw new ReplayError(
        `header: format version ${JSON.stringify(header.version)} is not supported (only ${VERSIONS.join(", ")})`
      );
    }
    this.header = header;
    this.config = header.config;
    this.width = header.map.width;
    this.height = header.map.height;
    this.frames = [];
    this.result = null;
    this.forfeitFrame = null;
    this._keyStates = /* @__PURE__ */ new Map();
    this._hpOf = { [WORKER]: this.config.worker_hp, [SOLDIER]: this.config.soldier_hp };
    this.recordsMemory = header.version >= MEMORY_VERSION;
    this.series = {
      banked: [[], []],
      fuel: [[], []],
      memory: [[], []],
      workers: [[], []],
      soldiers: [[], []]
    };
    this._live = null;
    this._memory = null;
  }
  /** Frames read so far (ticks 0 .. ticks-1, the forfeit frame included). */
  get ticks() {
    return this.frames.length;
  }
  get complete() {
    return this.result !== null;
  }
  /** Take the next frame of the stream; throws ReplayError if it does not fit. */
  addFrame(frame) {
    const t = this.frames.length;
    if (this.forfeitFrame !== null) {
      throw new ReplayError(`frame of tick ${t}: a frame after the forfeit frame of tick ${t - 1}`, t);
    }
    if (frame.t !== t) {
      throw new ReplayError(`frame of tick ${t}: field 't': expected tick ${t}, got ${frame.t}`, t);
    }
    const s = this.series;
    if (isForfeitFrame(frame)) {
      this.forfeitFrame = frame;
    } else if (t % KEYFRAME_INTERVAL === 0) {
      this._live = this._keyState(frame).clone();
    } else if (this._live === null) {
      throw misfit(t, "m", "a delta frame with no keyframe before it");
    } else {
      this._applyDelta(this._live, frame);
    }
    if (this.recordsMemory) {
      if (Array.isArray(frame.l) && frame.l.length === 2) this._memory = frame.l;
      else if ("l" in frame || this._memory === null) {
        throw misfit(t, "l", "expected both sides' memory sizes (they start at tick 0)");
      }
    }
    this.frames.push(frame);
    const live = this._live;
    for (const side of [0, 1]) {
      s.fuel[side].push(frame.f[side]);
      s.memory[side].push(this._memory === null ? null : this._memory[side]);
      s.banked[side].push(live === null ? 0 : live.banked[side]);
      let workers = 0;
      let soldiers = 0;
      if (live !== null) {
        for (const u of live.units[side].values()) {
          if (u.kind === WORKER) workers++;
          else soldiers++;
        }
      }
      s.workers[side].push(workers);
      s.soldiers[side].push(soldiers);
    }
  }
  setResult(result) {
    if (result.ticks !== this.frames.length) {
      throw new ReplayError(`result: field 'ticks': ${result.ticks} differs from the ${this.frames.length} frame(s) read`);
    }
    this.result = result;
  }
  /** The index of the last applied frame, or -1. */
  get lastApplied() {
    return this.ticks - 1 - (this.forfeitFrame !== null ? 1 : 0);
  }
  /**
   * The drawn state after applied tick t (0 <= t <= lastApplied): from the latest
   * keyframe at or before t, then the delta frames after it. A new object each call.
   */
  stateAt(t) {
    if (!(t >= 0 && t <= this.lastApplied)) {
      throw new RangeError(`tick ${t} is not an applied tick of this replay (0..${this.lastApplied})`);
    }
    const k = t - t % KEYFRAME_INTERVAL;
    const state = this._keyState(this.frames[k]).clone();
    for (let i = k + 1; i <= t; i++) this._applyDelta(state, this.frames[i]);
    return state;
  }
  /** The state after tick t from the state after tick t - 1 (changed in place). */
  advance(state, t) {
    const frame = this.frames[t];
    if (t % KEYFRAME_INTERVAL === 0) return this._keyState(frame).clone();
    this._applyDelta(state, frame);
    return state;
  }
  /** The (cached) state of a keyframe: its units "u" and its ore "g". */
  _keyState(frame) {
    let state = this._keyStates.get(frame.t);
    if (state === void 0) {
      const units = frame.u.map((flat) => {
        const side = /* @__PURE__ */ new Map();
        for (let i = 0; i + 5 < flat.length; i += 6) {
          side.set(flat[i], new Unit(flat[i], flat[i + 1], flat[i + 2], flat[i + 3], flat[i + 4], flat[i + 5]));
        }
        return side;
      });
      const ore = new Float64Array(this.width * this.height);
      const g = frame.g;
      for (let i = 0; i + 1 < g.length; i += 2) ore[g[i]] = g[i + 1];
      state = new State(frame.t, units, frame.k, frame.b, frame.e, ore);
      this._keyStates.set(frame.t, state);
    }
    return state;
  }
  /** Turn the previous state into this delta frame's, in place, in the format's order. */
  _applyDelta(state, frame) {
    const t = frame.t;
    const { width, height } = this;
    const [, deaths, spawns] = frame.v;
    for (let i = 0; i + 1 < deaths.length; i += 2) {
      const side = deaths[i];
      const id = deaths[i + 1];
      if (!state.units[side].delete(id)) {
        throw misfit(t, `v.deaths[${i}]`, `unit ${id} of side ${side} is not alive in the previous state`);
      }
    }
    for (const side of [0, 1]) {
      const survivors = state.units[side];
      const moves = frame.m[side];
      if (moves.length !== survivors.size) {
        throw misfit(
          t,
          `m[${side}]`,
          `${moves.length} moves for the ${survivors.size} surviving unit(s) of the previous state`
        );
      }
      let i = 0;
      for (const u of survivors.values()) {
        const d = DIRECTION_DELTAS[moves[i]];
        if (d === void 0) throw misfit(t, `m[${side}][${i}]`, `direction ${moves[i]} is outside 0..4`);
        const x = u.x + d[0];
        const y = u.y + d[1];
        if (!(x >= 0 && x < width && y >= 0 && y < height)) {
          throw misfit(t, `m[${side}][${i}]`, `unit ${u.id} at (${u.x}, ${u.y}) moves ${moves[i]} off the map`);
        }
        u.x = x;
        u.y = y;
        i++;
      }
      const h = frame.h[side];
      for (let j = 0; j + 2 < h.length; j += 3) {
        const u = survivors.get(h[j]);
        if (u === void 0) {
          throw misfit(
            t,
            `h[${side}][${j}:${j + 3}]`,
            `unit ${h[j]} is not a surviving unit of side ${side}'s previous state`
          );
        }
        u.hp = h[j + 1];
        u.carry = h[j + 2];
      }
    }
    for (let i = 0; i + 3 < spawns.length; i += 4) {
      const [side, id, kind, cell] = spawns.slice(i, i + 4);
      const path = `v.spawns[${i}]`;
      const living = state.units[side];
      let highest = 0;
      for (const uid of living.keys()) highest = uid;
      if (id <= highest) throw misfit(t, path, `unit id ${id} is not above side ${side}'s highest living id ${highest}`);
      if (!(kind in this._hpOf)) throw misfit(t, path, `kind ${kind} is neither ${WORKER} nor ${SOLDIER}`);
      if (living.size >= this.config.max_units) {
        throw misfit(t, path, `side ${side} already has max_units ${this.config.max_units} units`);
      }
      const x = cell % width;
      const y = Math.floor(cell / width);
      if (!(cell >= 0 && y < height)) throw misfit(t, path, `cell ${cell} is off the map`);
      living.set(id, new Unit(id, kind, x, y, this._hpOf[kind], 0));
    }
    const o = frame.o;
    for (let i = 0; i + 1 < o.length; i += 2) state.ore[o[i]] = o[i + 1];
    state.tick = t;
    state.colonyHp = frame.k;
    state.banked = frame.b;
    state.energy = frame.e;
  }
};
function visionMask(replay, state, side) {
  const { width, height, config } = replay;
  const seen = new Uint8Array(width * height);
  const square = (cx2, cy2, r) => {
    const x0 = Math.max(0, cx2 - r);
    const x1 = Math.min(width - 1, cx2 + r);
    for (let y = Math.max(0, cy2 - r); y <= Math.min(height - 1, cy2 + r); y++) {
      seen.fill(1, y * width + x0, y * width + x1 + 1);
    }
  };
  if (state !== null) {
    for (const u of state.units[side].values()) square(u.x, u.y, config.unit_vision);
  }
  const [cx, cy] = replay.header.map.colonies[side];
  square(cx, cy, config.colony_vision);
  return seen;
}
async function streamReplay(url, sink, { signal, headers = null } = {}) {
  const response = await fetch(url, headers ? { signal, headers } : { signal });
  sink.response?.();
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new ReplayError(`cannot load the replay (HTTP ${response.status}): ${text || response.statusText}`);
  }
  let replay = null;
  let pending = 0;
  const flush = () => {
    if (pending > 0) {
      pending = 0;
      sink.frames(replay);
    }
  };
  const chunks = countingChunks(response.body, () => flush());
  for await (const obj of decodeMultiStream(chunks, DECODE_LIMITS)) {
    if (replay === null) {
      replay = new Replay(obj);
      sink.header(replay);
      continue;
    }
    if (replay.complete) throw new ReplayError("bytes after the result");
    if (obj !== null && typeof obj === "object" && obj.type === "error") {
      flush();
      throw new ReplayError(`the server stopped the replay: ${obj.detail}`);
    }
    if (obj !== null && typeof obj === "object" && obj.type === "result") {
      flush();
      replay.setResult(obj);
      continue;
    }
    replay.addFrame(obj);
    pending++;
    if (replay.ticks === 1) {
      flush();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  flush();
  if (replay === null) throw new ReplayError("the replay is empty");
  if (!replay.complete) throw new ReplayError(`the replay ended after ${replay.ticks} frame(s), before its result`);
  sink.done(replay);
  return replay;
}
async function* countingChunks(body, before) {
  const reader = body.getReader();
  try {
    let first = true;
    for (; ; ) {
      if (!first) before();
      first = false;
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

// static/draw.js
var SIDE_COLORS = ["#4f9dff", "#ff7a45"];
var SIDE_DARK = ["#1f4f99", "#99401c"];
var OPEN = "#1c2229";
var ROCK = "#4b525c";
var ROCK_EDGE = "#5d6570";
var GRID = "#161b21";
var ORE = [234, 179, 8];
var HIT = "#ff3b3b";
var ORE_SHADES = 16;
var ORE_STYLES = Array.from(
  { length: ORE_SHADES },
  (_, k) => `rgba(${ORE[0]}, ${ORE[1]}, ${ORE[2]}, ${(0.25 + 0.75 * k / (ORE_SHADES - 1)).toFixed(3)})`
);
var GOLD = "#ffd24a";
var word = (hex) => (4278190080 | parseInt(hex.slice(5, 7), 16) << 16 | parseInt(hex.slice(3, 5), 16) << 8 | parseInt(hex.slice(1, 3), 16)) >>> 0;
function cellImage(width, height, wordOf) {
  const image = new ImageData(width, height);
  const words = new Uint32Array(image.data.buffer);
  for (let i = 0; i < words.length; i++) words[i] = wordOf(i);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  canvas.getContext("2d").putImageData(image, 0, 0);
  return canvas;
}
var MapRenderer = class {
  constructor(canvas, replay) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.replay = replay;
    this.cell = 16;
    this._dpr = null;
    this._terrain = null;
    this._cellImages = null;
    const ore = replay.header.map.ore;
    this._oreScale = Math.max(1, ...ore);
  }
  /** Fit the map into `maxWidth` CSS pixels (cells of 6 to 28 pixels). */
  resize(maxWidth) {
    const { width, height } = this.replay;
    const cell = Math.max(6, Math.min(28, Math.floor(maxWidth / width)));
    const dpr = window.devicePixelRatio || 1;
    if (cell === this.cell && this._dpr === dpr) return false;
    this.cell = cell;
    this._dpr = dpr;
    this.canvas.width = Math.round(width * cell * dpr);
    this.canvas.height = Math.round(height * cell * dpr);
    this.canvas.style.width = `${width * cell}px`;
    this.canvas.style.height = `${height * cell}px`;
    this._terrain = null;
    this._painted = false;
    return true;
  }
  /**
   * The terrain never changes: the first draw at a size paints it on the canvas, the next
   * ones copy it from a layer of its own, made then (not on the way to the first frame).
   */
  _drawTerrain(ctx) {
    if (this._terrain === null && !this._painted) {
      this._painted = true;
      ctx.setTransform(this._dpr, 0, 0, this._dpr, 0, 0);
      this._paintTerrain(ctx);
      return;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.terrain(), 0, 0);
  }
  /**
   * Paint the terrain on `ctx` (scaled to CSS pixels): an image of one pixel a cell, scaled
   * up whole without smoothing, then the rocks' top edges and the grid's gaps over it, a few
   * hundred draws in all instead of a fill per cell.
   */
  _paintTerrain(ctx) {
    const { width, height } = this.replay;
    const c = this.cell;
    if (this._cellImages === null) {
      const rock = this.replay.header.map.rock;
      const [open, rocky, edge] = [OPEN, ROCK, ROCK_EDGE].map(word);
      this._cellImages = {
        ground: cellImage(width, height, (i) => rock[i] === 1 ? rocky : open),
        edges: cellImage(width, height, (i) => rock[i] === 1 ? edge : 0)
      };
    }
    const { ground, edges } = this._cellImages;
    const smoothing = ctx.imageSmoothingEnabled;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(ground, 0, 0, width * c, height * c);
    if (c >= 10) {
      for (let y = 0; y < height; y++) ctx.drawImage(edges, 0, y, width, 1, 0, y * c, width * c, 2);
      ctx.fillStyle = GRID;
      for (let x = 0; x < width; x++) ctx.fillRect(x * c + c - 1, 0, 1, height * c);
      for (let y = 0; y < height; y++) ctx.fillRect(0, y * c + c - 1, width * c, 1);
    }
    ctx.imageSmoothingEnabled = smoothing;
  }
  /** The terrain at the canvas's size: a canvas the draws after the first copy. */
  terrain() {
    if (this._terrain === null) {
      const layer = document.createElement("canvas");
      layer.width = this.canvas.width;
      layer.height = this.canvas.height;
      const ctx = layer.getContext("2d");
      ctx.scale(this._dpr, this._dpr);
      this._paintTerrain(ctx);
      this._terrain = layer;
    }
    return this._terrain;
  }
  /**
   * Draw `view` ({state, prev, frame}): the state after the frame's tick, the state
   * before it (for where the dead and the attackers stood) and the frame (events).
   * `vision` is null or the side whose sight is shown.
   */
  draw(view, { vision = null } = {}) {
    const { ctx, cell: c, replay } = this;
    this._drawTerrain(ctx);
    ctx.setTransform(this._dpr, 0, 0, this._dpr, 0, 0);
    const state = view.state;
    const ore = state === null ? replay.header.map.ore : state.ore;
    this._drawOre(ore);
    this._drawColonies(state);
    if (state !== null) this._drawUnits(state);
    if (view.frame !== null && view.frame.v !== void 0) this._drawEvents(view);
    if (vision !== null) this._drawVision(visionMask(replay, state, vision), vision);
  }
  _drawOre(ore) {
    const { ctx, cell: c, replay } = this;
    const inset = Math.max(1, Math.round(c * 0.12));
    const side = c - 2 * inset - 1;
    const shades = Array.from({ length: ORE_SHADES }, () => []);
    for (let i = 0; i < ore.length; i++) {
      if (ore[i] > 0) shades[Math.round((ORE_SHADES - 1) * Math.min(1, ore[i] / this._oreScale))].push(i);
    }
    shades.forEach((cells, shade) => {
      if (cells.length === 0) return;
      ctx.fillStyle = ORE_STYLES[shade];
      for (const i of cells) {
        const x = i % replay.width;
        ctx.fillRect(x * c + inset, (i - x) / replay.width * c + inset, side, side);
      }
    });
  }
  _drawColonies(state) {
    const { ctx, cell: c, replay } = this;
    const full = replay.config.colony_hp;
    replay.header.map.colonies.forEach(([x, y], side) => {
      const hp = state === null ? full : state.colonyHp[side];
      const px = x * c;
      const py = y * c;
      ctx.fillStyle = hp > 0 ? SIDE_COLORS[side] : "#333";
      ctx.fillRect(px - 1, py - 1, c + 1, c + 1);
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1;
      ctx.strokeRect(px + 1.5, py + 1.5, c - 4, c - 4);
      if (hp <= 0) {
        this._cross(px + c / 2, py + c / 2, c * 0.4, HIT, 2);
      }
      const frac = Math.max(0, Math.min(1, hp / full));
      const barY = py >= 6 ? py - 5 : py + c + 1;
      ctx.fillStyle = "#000";
      ctx.fillRect(px - c / 2, barY, c * 2, 4);
      ctx.fillStyle = frac > 0.5 ? "#4ade80" : frac > 0.25 ? "#facc15" : "#f87171";
      ctx.fillRect(px - c / 2, barY, c * 2 * frac, 4);
    });
  }
  _drawUnits(state) {
    const { ctx, cell: c, replay } = this;
    const cfg = replay.config;
    state.units.forEach((units, side) => {
      ctx.fillStyle = SIDE_COLORS[side];
      ctx.strokeStyle = SIDE_DARK[side];
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (const u of units.values()) {
        const cx = u.x * c + c / 2;
        const cy = u.y * c + c / 2;
        if (u.kind === SOLDIER) {
          const r = c * 0.42;
          ctx.moveTo(cx, cy - r);
          ctx.lineTo(cx + r, cy);
          ctx.lineTo(cx, cy + r);
          ctx.lineTo(cx - r, cy);
          ctx.closePath();
        } else {
          ctx.moveTo(cx + c * 0.3, cy);
          ctx.arc(cx, cy, c * 0.3, 0, 2 * Math.PI);
        }
      }
      ctx.fill();
      ctx.stroke();
      for (const u of units.values()) {
        const cx = u.x * c + c / 2;
        const cy = u.y * c + c / 2;
        if (u.carry > 0) {
          const share = Math.min(1, u.carry / cfg.carry_cap);
          ctx.fillStyle = GOLD;
          ctx.beginPath();
          ctx.arc(cx, cy, Math.max(1.5, c * 0.16 * Math.sqrt(share)), 0, 2 * Math.PI);
          ctx.fill();
        }
        const full = u.kind === SOLDIER ? cfg.soldier_hp : cfg.worker_hp;
        if (u.hp < full && c >= 8) {
          const w = c - 4;
          ctx.fillStyle = "#000";
          ctx.fillRect(u.x * c + 2, u.y * c + c - 3, w, 2);
          ctx.fillStyle = "#f87171";
          ctx.fillRect(u.x * c + 2, u.y * c + c - 3, w * Math.max(0, u.hp) / full, 2);
        }
      }
    });
  }
  _drawEvents(view) {
    const { ctx, cell: c, replay } = this;
    const { width } = replay;
    const [attacks, deaths, spawns, deposits] = view.frame.v;
    const center = (cell) => [cell % width * c + c / 2, Math.floor(cell / width) * c + c / 2];
    const stood = (side, id) => {
      const u = view.prev !== null && view.prev.units[side].get(id) || view.state.units[side].get(id);
      return u === void 0 ? null : [u.x * c + c / 2, u.y * c + c / 2];
    };
    for (let i = 0; i + 2 < attacks.length; i += 3) {
      const [tx, ty] = center(attacks[i + 2]);
      const from = stood(attacks[i], attacks[i + 1]);
      if (from !== null) {
        ctx.strokeStyle = SIDE_COLORS[attacks[i]];
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(from[0], from[1]);
        ctx.lineTo(tx, ty);
        ctx.stroke();
      }
      this._burst(tx, ty, c * 0.45);
    }
    for (let i = 0; i + 1 < deaths.length; i += 2) {
      const at = view.prev === null ? null : view.prev.units[deaths[i]].get(deaths[i + 1]);
      if (at !== void 0 && at !== null) {
        this._cross(at.x * c + c / 2, at.y * c + c / 2, c * 0.4, SIDE_COLORS[deaths[i]], 3);
      }
    }
    for (let i = 0; i + 3 < spawns.length; i += 4) {
      const [x, y] = center(spawns[i + 3]);
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(x, y, c * 0.55, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.font = `bold ${Math.max(9, Math.round(c * 0.7))}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    for (let i = 0; i + 2 < deposits.length; i += 3) {
      const at = stood(deposits[i], deposits[i + 1]);
      if (at === null) continue;
      ctx.lineWidth = 3;
      ctx.strokeStyle = "#000";
      ctx.strokeText(`+${deposits[i + 2]}`, at[0], at[1] - c * 0.3);
      ctx.fillStyle = GOLD;
      ctx.fillText(`+${deposits[i + 2]}`, at[0], at[1] - c * 0.3);
    }
  }
  _drawVision(seen, side) {
    const { ctx, cell: c, replay } = this;
    const { width, height } = replay;
    ctx.fillStyle = "rgba(0, 0, 0, 0.6)";
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!seen[y * width + x]) ctx.fillRect(x * c, y * c, c, c);
      }
    }
    ctx.strokeStyle = SIDE_COLORS[side];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!seen[y * width + x]) continue;
        const i = y * width + x;
        if (x === 0 || !seen[i - 1]) this._edge(x * c, y * c, x * c, (y + 1) * c);
        if (x === width - 1 || !seen[i + 1]) this._edge((x + 1) * c, y * c, (x + 1) * c, (y + 1) * c);
        if (y === 0 || !seen[i - width]) this._edge(x * c, y * c, (x + 1) * c, y * c);
        if (y === height - 1 || !seen[i + width]) this._edge(x * c, (y + 1) * c, (x + 1) * c, (y + 1) * c);
      }
    }
    ctx.stroke();
  }
  _edge(x0, y0, x1, y1) {
    this.ctx.moveTo(x0, y0);
    this.ctx.lineTo(x1, y1);
  }
  _cross(x, y, r, color, width) {
    const ctx = this.ctx;
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.stroke();
  }
  _burst(x, y, r) {
    const ctx = this.ctx;
    ctx.strokeStyle = HIT;
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (let k = 0; k < 8; k++) {
      const a = k * Math.PI / 4;
      ctx.moveTo(x + Math.cos(a) * r * 0.35, y + Math.sin(a) * r * 0.35);
      ctx.lineTo(x + Math.cos(a) * r, y + Math.sin(a) * r);
    }
    ctx.stroke();
  }
};

export {
  SOLDIER,
  streamReplay,
  SIDE_COLORS,
  MapRenderer
};
