"""A cpio archive in the "newc" format the kernel unpacks an initramfs
from, written without the cpio tool and without root: a device node is
only a header here."""
import stat


class Newc:
    def __init__(self):
        self.out = bytearray()
        self.ino = 0

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        self.ino += 1
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0],
                  rdev[1], len(name_b), 0]
        self.out += b"070701" + b"".join(b"%08X" % f for f in fields)
        self.out += name_b
        self._pad()
        self.out += data
        self._pad()

    def _pad(self):
        self.out += b"\0" * (-len(self.out) % 4)

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def bytes(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.out)
