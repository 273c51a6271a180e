"""What libdli's ceph provider must answer about a CephFS file, worked out from the
cluster itself rather than from libcephfs: the file's layout (its ceph.file.layout
xattr on the ceph-fuse mount), CephFS striping, and the monitors' `osd map` of each
object (acting OSDs, primary first) with the OSDs' CRUSH hosts;
the answers are compared with dli_query's through dli_expect."""
import os


def set_layout(path, **layout):
    """Creates PATH empty with the given layout (CephFS takes one only while empty)."""
    path.touch()
    text = " ".join(f"{key}={value}" for key, value in layout.items())
    os.setxattr(path, "ceph.file.layout", text.encode())


def layout_of(path):
    """{"stripe_unit": .., "stripe_count": .., "object_size": .., "pool": ..}"""
    fields = dict(item.split("=", 1) for item in os.getxattr(path, "ceph.file.layout").decode().split())
    return {key: value if key == "pool" else int(value) for key, value in fields.items()
            if key in ("stripe_unit", "stripe_count", "object_size", "pool")}


def object_of(offset, layout):
    """The index of the object holding a file offset: stripe units go round-robin over
    stripe_count objects, object_size / stripe_unit units deep, then the next set."""
    unit, count = layout["stripe_unit"], layout["stripe_count"]
    stripe, position = divmod(offset // unit, count)
    units_per_object = layout["object_size"] // unit
    return stripe // units_per_object * count + position


def expected_chunks(cluster, path):
    """[(offset, length, [host, ...]), ...]: one per stripe unit, the last one cut at
    the end of the file, hosts of the acting OSDs in order."""
    layout, stat = layout_of(path), os.stat(path)
    unit, acting = layout["stripe_unit"], {}
    chunks = []
    for offset in range(0, stat.st_size, unit):
        name = f"{stat.st_ino:x}.{object_of(offset, layout):08x}"
        if name not in acting:
            acting[name] = cluster.osd_map(layout["pool"], name)
        hosts = [cluster.osd_hosts[osd] for osd in acting[name]]
        chunks.append((offset, min(unit, stat.st_size - offset), hosts))
    return chunks
