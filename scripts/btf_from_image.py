#!/usr/bin/env python3
"""Cut the kernel's BTF out of an uncompressed kernel Image.

A kernel built with CONFIG_DEBUG_INFO_BTF keeps its BTF in the .BTF section
of vmlinux, and that section is loaded with the kernel, so the boot Image
(arm64's Image is vmlinux's loadable sections, with no ELF headers) holds it
too. This finds the one BTF header in the Image whose sizes fit, and writes
the raw blob that `bpftool btf dump file BLOB format c` reads.

usage: scripts/btf_from_image.py IMAGE OUT.btf
"""
import struct
import sys

BTF_MAGIC = b"\x9f\xeb"     # 0xeB9F, little-endian
BTF_HDR = struct.Struct("<HBBIIIII")


def find_btf(image):
    """(offset, size) of every well-formed BTF blob in image."""
    found = []
    at = image.find(BTF_MAGIC)
    while at >= 0:
        if at + BTF_HDR.size <= len(image):
            _, version, flags, hdr_len, type_off, type_len, str_off, \
                str_len = BTF_HDR.unpack_from(image, at)
            size = hdr_len + str_off + str_len
            # the kernel's layout: types right after the header, strings
            # right after the types, strings starting with "\0"
            if (version == 1 and flags == 0 and hdr_len == BTF_HDR.size
                    and type_off == 0 and str_off == type_len
                    and type_len > 0 and str_len > 0
                    and at + size <= len(image)
                    and image[at + hdr_len + str_off] == 0):
                found.append((at, size))
        at = image.find(BTF_MAGIC, at + 1)
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    path, out = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        image = f.read()
    if image[:2] == b"\x1f\x8b":
        sys.exit(f"{path}: gzip-compressed; gunzip it first")
    found = find_btf(image)
    if len(found) != 1:
        sys.exit(f"{path}: {len(found)} BTF blobs found, expected one "
                 f"(a kernel built with CONFIG_DEBUG_INFO_BTF)")
    at, size = found[0]
    with open(out, "wb") as f:
        f.write(image[at:at + size])
    print(f"{out}: {size} bytes of BTF from {path} at offset {at:#x}")


if __name__ == "__main__":
    main()
