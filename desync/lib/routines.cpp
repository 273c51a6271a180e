// routines.cpp - the bodies of the six desynchBlock* routines, on the running job.
#include "runtime.h"

namespace desync {

int Runtime::check(const Address &a) const
{
    if (leases_->valid(a))
        return DESYNC_SUCCESS;
    const_cast<Runtime *>(this)->note("block address " + a.text() + " is outside every file of the job");
    return DESYNC_ERR_ADDRESS;
}

void *Runtime::make(size_t size)
{
    return store_.make(size);
}

bool Runtime::exists(const Address &a)
{
    return made(a); // made and since freed still counts: the binding never changes
}

bool Runtime::most_recent(const Address &a, Address *found)
{
    for (int v = job_.file(a.file())->versions - 1; v >= 0; v--)
        if (made(a.at_version(v))) {
            *found = a.at_version(v);
            return true;
        }
    return false;
}

int Runtime::read(const Address &a, const void **bufp, size_t *lenp, rd_handle *handle)
{
    Block *b = store_.find(a);
    if (!b) {
        bool elsewhere = !mine(a);
        int rc = elsewhere ? pump_until_present(a) : DESYNC_ERR_NOT_MADE;
        if (rc == DESYNC_ERR_NOT_MADE) {
            note("block " + a.text() + (made(a) ? " was freed" : " is not made yet") +
                 ": the block being computed must list it in appDepList(DESYNCH_BACKWARD)");
            return rc;
        }
        if (rc != DESYNC_SUCCESS)
            return rc;
        b = store_.find(a);
    }
    *handle = store_.acquire(b);
    if (!*handle) {
        note("no memory for a read handle");
        return DESYNC_ERR_NOMEM;
    }
    *bufp = b->data;
    *lenp = b->len;
    return DESYNC_SUCCESS;
}

int Runtime::write(const Address &a, void *data, size_t len)
{
    Block *b = nullptr;
    int rc = store_.bind(a, data, len, &b);
    if (rc == DESYNC_ERR_BUFFER) {
        note("desynchBlockWrite of block " + a.text() +
             ": the buffer is not one from desynchBlockMake still unwritten, or is shorter than " +
             std::to_string(len) + " bytes");
        return rc;
    }
    if (rc == DESYNC_ERR_CONFLICT)
        return fail(rc, "block " + a.text() + " written twice with different bytes");
    if (b)
        block_made(b, true);
    return error_ != DESYNC_SUCCESS ? error_ : DESYNC_SUCCESS;
}

int Runtime::free_handle(rd_handle handle)
{
    Block *b = store_.release(handle);
    if (!b) {
        note("desynchBlockFree of a handle that is not a live read");
        return DESYNC_ERR_HANDLE;
    }
    if (b->refs == 0)
        collect_due_ = true;
    return DESYNC_SUCCESS;
}

} // namespace desync
