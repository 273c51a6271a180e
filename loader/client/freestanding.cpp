// freestanding.cpp - memcpy, memset, memmove and memcmp, which the compiler may call
// for copies and zeroing even in code that never names them. Hidden, like everything
// but the audit callbacks: the application's own definitions are not ours to replace.
//
// The string instructions are used on purpose: a plain loop could be recognised by the
// compiler and turned back into a call to the very function it implements.
#include <stddef.h>

extern "C" {

void *memcpy(void *destination, const void *source, size_t count)
{
    void *start = destination;
    __asm__ volatile("rep movsb" : "+D"(destination), "+S"(source), "+c"(count) : : "memory");
    return start;
}

void *memset(void *destination, int value, size_t count)
{
    void *start = destination;
    __asm__ volatile("rep stosb" : "+D"(destination), "+c"(count) : "a"(value) : "memory");
    return start;
}

void *memmove(void *destination, const void *source, size_t count)
{
    char *to = static_cast<char *>(destination);
    const char *from = static_cast<const char *>(source);
    if (to <= from || to >= from + count)
        return memcpy(destination, source, count);  // a forward copy is safe
    // Overlapping with the destination above: copy backwards, last byte first.
    to += count - 1;
    from += count - 1;
    __asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(to), "+S"(from), "+c"(count) : : "memory");
    return destination;
}

int memcmp(const void *left, const void *right, size_t count)
{
    const unsigned char *a = static_cast<const unsigned char *>(left);
    const unsigned char *b = static_cast<const unsigned char *>(right);
    for (size_t i = 0; i < count; ++i)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

}  // extern "C"
