#!/usr/bin/env python3
"""Independent decryptor for Coffer backup files (format versions 1 and 2).

Written from docs/encryption-format.md, not from the agent's code, so that a customer can
decrypt a downloaded backup without Coffer.

    pip install cryptography zstandard
    python3 decrypt_coffer.py --key-file coffer.key backup.enc.coffer backup.archive
    mongorestore --archive=backup.archive --drop

The whole file is authenticated before anything is written; OUT is written under a temporary
name and renamed only when complete (for version 2, only when the archive matches the length and
SHA-256 in the file's sealed record). Use OUT = '-' for standard output. For a version 2 file the
database label and backup id it is bound to are printed on standard error.
Exit status: 0 success, 1 the file is not a valid backup for this key, 2 usage or key file error.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import struct
import sys
import tempfile

try:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
except ImportError:  # pragma: no cover
    sys.stderr.write("decrypt_coffer.py needs the 'cryptography' package: pip install cryptography zstandard\n")
    sys.exit(2)

MAGIC = b"COFFER"
VERSIONS = (1, 2)
HEADER_LEN = 67  # version 1; version 2 adds the binding
MAX_RECORD_LEN = 16 * 1024 * 1024
TAG_LEN = 16
MAX_CHUNK_SIZE = 16 * 1024 * 1024
FINAL_FLAG = 0x80000000
COMPRESSION_NONE = 0
COMPRESSION_ZSTD = 1
KEY_PREFIX = "coffer-key-v1:"


class CofferError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def hkdf(ikm, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def fingerprint(master_key):
    return hkdf(master_key, None, b"coffer-v1 key-fingerprint", 16)


def read_key_file(path):
    with open(path, "r", encoding="utf-8") as f:
        lines = [line.strip() for line in f.read().splitlines()]
    key_lines = [line for line in lines if line and not line.startswith("#")]
    if len(key_lines) != 1:
        raise ValueError("expected exactly one line starting with %r" % KEY_PREFIX)
    line = key_lines[0]
    if not line.startswith(KEY_PREFIX):
        raise ValueError("the key line does not start with %r" % KEY_PREFIX)
    b64 = line[len(KEY_PREFIX):]
    if not re.fullmatch(r"[A-Za-z0-9_-]{43}", b64):
        raise ValueError("the key must be 43 base64url characters after the prefix")
    key = base64.urlsafe_b64decode(b64 + "=")
    if len(key) != 32 or base64.urlsafe_b64encode(key).rstrip(b"=").decode() != b64:
        raise ValueError("the key does not decode to 32 bytes")
    # The first fingerprint comment counts, its value being the rest of the line (section 2).
    matches = (re.match(r"#\s*fingerprint:(.*)$", c, re.IGNORECASE) for c in lines)
    stated = next((m.group(1).strip() for m in matches if m), None)
    if stated is not None and stated.lower() != fingerprint(key).hex():
        raise ValueError("the key does not match the fingerprint written beside it")
    return key


def read_exact(f, n):
    data = f.read(n)
    while len(data) < n:
        more = f.read(n - len(data))
        if not more:
            break
        data += more
    return data


def read_binding(f, header):
    """Version 2: label_length (1) || label || backup_id_length (1) || backup_id. Returns the whole header."""
    fields = []
    for _ in range(2):
        n = read_exact(f, 1)
        value = read_exact(f, n[0]) if n else b""
        if not n or len(value) < n[0]:
            raise CofferError("TRUNCATED", "the file ends inside the header")
        header += n + value
        fields.append(value)
    try:
        if not fields[0] or not fields[1]:
            raise ValueError("empty")
        label, backup_id = fields[0].decode("utf-8"), fields[1].decode("utf-8")
    except ValueError:
        raise CofferError("BAD_HEADER", "the database label or backup id is empty or not UTF-8") from None
    return header, label, backup_id


class Record:
    """The authenticated sealed record of a version 2 file (filled in once it has been read)."""

    def __init__(self):
        self.value = None


def parse_record(data):
    def bad(why):
        return CofferError("BAD_RECORD", "the sealed record is unusable: " + why)

    try:
        r = json.loads(data.decode("utf-8"))
    except ValueError:
        raise bad("it is not UTF-8 JSON") from None
    count = lambda n: isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 2**53 - 1
    if not isinstance(r, dict):
        raise bad("it is not a JSON object")
    if not count(r.get("archiveBytes")):
        raise bad("archiveBytes is not a byte count")
    if not isinstance(r.get("archiveSha256"), str) or not re.fullmatch(r"[0-9a-f]{64}", r["archiveSha256"]):
        raise bad("archiveSha256 is not 64 lowercase hex characters")
    if not isinstance(r.get("namespaces"), list):
        raise bad("namespaces is not a list")
    for n in r["namespaces"]:
        if not isinstance(n, dict) or not isinstance(n.get("ns"), str) or not count(n.get("documents")):
            raise bad("a namespace lacks its name or document count")
    return r


def chunks(f, master_key, record=None):
    """Yields (header, plaintext) for each authenticated chunk; raises CofferError on any problem.
    For version 2, the sealed record is authenticated after the final chunk and stored in `record`."""
    header = read_exact(f, HEADER_LEN)
    if header[:6] != MAGIC[: len(header[:6])] or len(header) < 6:
        raise CofferError("NOT_COFFER", "not a Coffer backup file (no COFFER header)")
    if len(header) >= 7 and header[6] not in VERSIONS:
        raise CofferError("UNSUPPORTED_VERSION", "unsupported format version %d" % header[6])
    if len(header) < HEADER_LEN:
        raise CofferError("TRUNCATED", "the file ends inside the header")
    version = header[6]
    binding = None
    if version == 2:
        header, label, backup_id = read_binding(f, header)
        binding = (label, backup_id)
    compression = header[7]
    (chunk_size,) = struct.unpack(">I", header[8:12])
    salt, nonce_prefix, file_fp = header[12:44], header[44:51], header[51:67]
    if compression not in (COMPRESSION_NONE, COMPRESSION_ZSTD):
        raise CofferError("BAD_HEADER", "unknown compression %d" % compression)
    if not 1 <= chunk_size <= MAX_CHUNK_SIZE:
        raise CofferError("BAD_HEADER", "invalid chunk size %d" % chunk_size)
    my_fp = fingerprint(master_key)
    if my_fp != file_fp:
        raise CofferError(
            "WRONG_KEY",
            "this backup was encrypted with a different key (fingerprint %s, key file %s)" % (file_fp.hex(), my_fp.hex()),
        )
    aead = AESGCM(hkdf(master_key, salt, b"coffer-v1 file-key", 32))
    index, offset = 0, len(header)
    while True:
        word = read_exact(f, 4)
        if len(word) < 4:
            raise CofferError("TRUNCATED", "the file ends before its final chunk (after chunk %d)" % (index - 1))
        (w,) = struct.unpack(">I", word)
        final, length = bool(w & FINAL_FLAG), w & ~FINAL_FLAG
        if length > chunk_size or (not final and length != chunk_size) or (final and length == 0 and index > 0):
            raise CofferError("CORRUPT_CHUNK", "chunk %d (byte %d) has an invalid length" % (index, offset))
        if index >= (2**32 - 1 if version == 2 else 2**32):
            raise CofferError("CORRUPT_CHUNK", "too many chunks")
        body = read_exact(f, length + TAG_LEN)
        if len(body) < length + TAG_LEN:
            raise CofferError("TRUNCATED", "the file ends inside chunk %d (byte %d)" % (index, offset))
        nonce = nonce_prefix + struct.pack(">I", index) + (b"\x01" if final else b"\x00")
        try:
            plain = aead.decrypt(nonce, body, header)  # body = ciphertext || tag
        except InvalidTag:
            raise CofferError("CORRUPT_CHUNK", "chunk %d (byte %d) failed authentication" % (index, offset)) from None
        yield header, plain
        index += 1
        offset += 4 + length + TAG_LEN
        if final:
            break
    if version == 2:
        word = read_exact(f, 4)
        if len(word) < 4:
            raise CofferError("TRUNCATED", "the sealed record is missing (byte %d)" % offset)
        (length,) = struct.unpack(">I", word)
        if length > MAX_RECORD_LEN:
            raise CofferError("CORRUPT_CHUNK", "the sealed record (byte %d) has an invalid length" % offset)
        body = read_exact(f, length + TAG_LEN)
        if len(body) < length + TAG_LEN:
            raise CofferError("TRUNCATED", "the file ends inside its sealed record (byte %d)" % offset)
        nonce = nonce_prefix + struct.pack(">I", index) + b"\x02"
        try:
            plain = aead.decrypt(nonce, body, header)
        except InvalidTag:
            raise CofferError("CORRUPT_CHUNK", "the sealed record (byte %d) failed authentication" % offset) from None
        parsed = parse_record(plain)
        if record is not None:
            record.value = parsed
            record.binding = binding
        offset += 4 + length + TAG_LEN
    if f.read(1):
        raise CofferError("TRAILING_DATA", "unexpected data after the end of the file (byte %d)" % offset)


def verify(path, key):
    with open(path, "rb") as f:
        for _ in chunks(f, key):
            pass


class Zstd:
    """Streaming zstd decompression of possibly several concatenated frames."""

    def __init__(self):
        try:
            import zstandard
        except ImportError:
            sys.stderr.write("this backup is zstd-compressed: pip install zstandard\n")
            sys.exit(2)
        self.ctx = zstandard.ZstdDecompressor()
        self.obj = None

    def feed(self, data):
        out = []
        while data:
            if self.obj is None:
                self.obj = self.ctx.decompressobj()
            out.append(self.obj.decompress(data))
            data = self.obj.unused_data if self.obj.eof else b""
            if self.obj.eof:
                self.obj = None
        return b"".join(out)

    def finish(self):
        if self.obj is not None:
            raise CofferError("BAD_PAYLOAD", "the zstd data ends inside a frame")


def decrypt(path, key, out):
    """Writes the archive to `out`; for version 2 checks it against the sealed record at the end."""
    record = Record()
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        zstd = None
        for header, plain in chunks(f, key, record):
            if header[7] == COMPRESSION_ZSTD:
                zstd = zstd or Zstd()
                plain = zstd.feed(plain)
            digest.update(plain)
            size += len(plain)
            out.write(plain)
        if zstd:
            zstd.finish()
    r = record.value
    if r is not None:
        if size != r["archiveBytes"]:
            raise CofferError("BAD_RECORD", "the archive is %d bytes, its sealed record says %d" % (size, r["archiveBytes"]))
        if digest.hexdigest() != r["archiveSha256"]:
            raise CofferError("BAD_RECORD", "the archive does not match the SHA-256 in its sealed record")
        sys.stderr.write("bound to database label %r, backup id %r\n" % record.binding)


def main(argv=None):
    p = argparse.ArgumentParser(description="Decrypt a Coffer backup file (format v1 or v2).")
    p.add_argument("--key-file", required=True, help="key file written by `coffer-agent key export`")
    p.add_argument("input", help="encrypted backup (.coffer)")
    p.add_argument("output", help="where to write the mongodump archive ('-' for stdout)")
    args = p.parse_args(argv)
    try:
        key = read_key_file(args.key_file)
    except (OSError, ValueError) as e:
        sys.stderr.write("error: cannot use key file %s: %s\n" % (args.key_file, e))
        return 2
    try:
        verify(args.input, key)  # all-or-nothing: authenticate everything first
        if args.output == "-":
            decrypt(args.input, key, sys.stdout.buffer)
            return 0
        d = os.path.dirname(os.path.abspath(args.output))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".decrypt_coffer.", suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as out:
                decrypt(args.input, key, out)
            os.replace(tmp, args.output)
        except BaseException:
            os.unlink(tmp)
            raise
    except CofferError as e:
        sys.stderr.write("error [%s]: %s\n" % (e.code, e))
        return 1
    except OSError as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    except Exception as e:  # zstd errors from a damaged payload
        sys.stderr.write("error [BAD_PAYLOAD]: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
