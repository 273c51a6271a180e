// How a Fortran caller passes each C parameter type of routines.def, and how that
// argument becomes the C one (for the Fortran entry points, fortran.cpp).
//
// Argument<C> is the conversion for C parameter type C:
//   Argument<C>::Fortran        what Fortran passes (by reference, nearly always)
//   Argument<C>(fortran, lengths)  converts it before the call; CHARACTER arguments
//                               take their hidden length from `lengths`
//   c()                         the C argument
//   write_back()                after a successful call, gives the results back
//
// Handles go through the MPI's f2c/c2f functions, never a cast: Fortran's are
// INTEGERs, Open MPI's C handles are pointers.
#ifndef PIOX_SHIM_FORTRAN_ARGUMENTS_H
#define PIOX_SHIM_FORTRAN_ARGUMENTS_H

#include <mpi.h>

#include <cstddef>
#include <string>

#ifndef OMPI_MAJOR_VERSION
// MPICH's Fortran bindings call the C symbols, so it needs no entry points; and its
// handles are all `int`, which would make the conversions by type ambiguous.
#error "the Fortran entry points are for Open MPI only"
#endif

// The address Open MPI's Fortran MPI_BOTTOM has (a common block; the C value is 0).
// Weak, so that libpiox still loads with an Open MPI built without Fortran.
extern "C" int mpi_fortran_bottom_ __attribute__((weak));

namespace piox::shim::fortran {

// Fortran appends one length for each CHARACTER argument, after all the others;
// the string arguments take them in order.
class HiddenLengths {
  public:
    explicit HiddenLengths(const std::size_t *lengths) : next_(lengths) {}
    std::size_t take() { return *next_++; }

  private:
    const std::size_t *next_;
};

// A handle passed in: Fortran's INTEGER, by reference.
template <typename Handle, Handle (*f2c)(MPI_Fint)>
class HandleIn {
  public:
    using Fortran = const MPI_Fint *;
    HandleIn(Fortran fortran, HiddenLengths &) : handle_(f2c(*fortran)) {}
    Handle c() const { return handle_; }
    void write_back() {}

  private:
    Handle handle_;
};

// A handle the routine may replace (MPI_File_open, MPI_File_close).
template <typename Handle, Handle (*f2c)(MPI_Fint), MPI_Fint (*c2f)(Handle)>
class HandleInOut {
  public:
    using Fortran = MPI_Fint *;
    HandleInOut(Fortran fortran, HiddenLengths &) : fortran_(fortran), handle_(f2c(*fortran)) {}
    Handle *c() { return &handle_; }
    void write_back() { *fortran_ = c2f(handle_); }

  private:
    Fortran fortran_;
    Handle handle_;
};

// A handle the routine creates (requests).
template <typename Handle, MPI_Fint (*c2f)(Handle)>
class HandleOut {
  public:
    using Fortran = MPI_Fint *;
    HandleOut(Fortran fortran, HiddenLengths &) : fortran_(fortran) {}
    Handle *c() { return &handle_; }
    void write_back() { *fortran_ = c2f(handle_); }

  private:
    Fortran fortran_;
    Handle handle_{};
};

// INTEGER and INTEGER(KIND=MPI_OFFSET_KIND) values, passed by reference.
template <typename C, typename F>
class ValueIn {
  public:
    using Fortran = const F *;
    ValueIn(Fortran fortran, HiddenLengths &) : value_(static_cast<C>(*fortran)) {}
    C c() const { return value_; }
    void write_back() {}

  private:
    C value_;
};

template <typename C, typename F>
class ValueOut {
  public:
    using Fortran = F *;
    ValueOut(Fortran fortran, HiddenLengths &) : fortran_(fortran) {}
    C *c() { return &value_; }
    void write_back() { *fortran_ = static_cast<F>(value_); }

  private:
    Fortran fortran_;
    C value_{};
};

// A choice buffer (void * or const void *) passes through, but for MPI_BOTTOM.
template <typename Pointer>
class Buffer {
  public:
    using Fortran = Pointer;
    Buffer(Fortran fortran, HiddenLengths &) : buffer_(fortran) {}
    Pointer c() const
    {
        const bool bottom = &mpi_fortran_bottom_ != nullptr && buffer_ == &mpi_fortran_bottom_;
        return bottom ? MPI_BOTTOM : buffer_;
    }
    void write_back() {}

  private:
    Pointer buffer_;
};

// INTEGER status(MPI_STATUS_SIZE), or MPI_STATUS_IGNORE.
class StatusOut {
  public:
    using Fortran = MPI_Fint *;
    StatusOut(Fortran fortran, HiddenLengths &) : fortran_(fortran) {}
    MPI_Status *c() { return ignored() ? MPI_STATUS_IGNORE : &status_; }
    void write_back()
    {
        if (!ignored())
            MPI_Status_c2f(&status_, fortran_);
    }

  private:
    bool ignored() const { return fortran_ == MPI_F_STATUS_IGNORE; }

    Fortran fortran_;
    MPI_Status status_{};
};

// CHARACTER(LEN=*): not NUL-terminated, padded with blanks. Leading and trailing
// blanks are dropped, as Open MPI's own bindings do.
class StringIn {
  public:
    using Fortran = const char *;
    StringIn(Fortran fortran, HiddenLengths &lengths)
        : string_(trimmed(fortran, lengths.take()))
    {
    }
    const char *c() const { return string_.c_str(); }
    void write_back() {}

  private:
    static std::string trimmed(const char *fortran, std::size_t length)
    {
        std::string padded(fortran, length);
        const std::size_t first = padded.find_first_not_of(' ');
        if (first == std::string::npos)
            return {};
        return padded.substr(first, padded.find_last_not_of(' ') - first + 1);
    }

    std::string string_;
};

// The conversion for each C parameter type. A routine with a type not listed here
// does not compile: add its conversion.
template <typename C>
struct ArgumentFor;
template <>
struct ArgumentFor<MPI_Comm> {
    using type = HandleIn<MPI_Comm, MPI_Comm_f2c>;
};
template <>
struct ArgumentFor<MPI_Info> {
    using type = HandleIn<MPI_Info, MPI_Info_f2c>;
};
template <>
struct ArgumentFor<MPI_Datatype> {
    using type = HandleIn<MPI_Datatype, MPI_Type_f2c>;
};
template <>
struct ArgumentFor<MPI_File> {
    using type = HandleIn<MPI_File, MPI_File_f2c>;
};
template <>
struct ArgumentFor<MPI_File *> {
    using type = HandleInOut<MPI_File, MPI_File_f2c, MPI_File_c2f>;
};
template <>
struct ArgumentFor<MPI_Info *> {
    using type = HandleOut<MPI_Info, MPI_Info_c2f>;
};
template <>
struct ArgumentFor<MPI_Request *> {
    using type = HandleOut<MPI_Request, MPI_Request_c2f>;
};
template <>
struct ArgumentFor<MPI_Status *> {
    using type = StatusOut;
};
template <>
struct ArgumentFor<int> {
    using type = ValueIn<int, MPI_Fint>;
};
template <>
struct ArgumentFor<int *> {
    using type = ValueOut<int, MPI_Fint>;
};
template <>
struct ArgumentFor<MPI_Offset> {
    using type = ValueIn<MPI_Offset, MPI_Offset>;
};
template <>
struct ArgumentFor<MPI_Offset *> {
    using type = ValueOut<MPI_Offset, MPI_Offset>;
};
template <>
struct ArgumentFor<const char *> {
    using type = StringIn;
};
template <>
struct ArgumentFor<void *> {
    using type = Buffer<void *>;
};
template <>
struct ArgumentFor<const void *> {
    using type = Buffer<const void *>;
};

template <typename C>
using Argument = typename ArgumentFor<C>::type;

}  // namespace piox::shim::fortran

#endif
