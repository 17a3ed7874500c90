// The GSSAPI functions libgit2's HTTP "Negotiate" (Kerberos) authentication
// calls, each loading libgssapi_krb5 at its first call: linked directly, that
// library and six more of Kerberos were loaded and relocated at every start
// of every command, for the rare push that meets a Kerberos server
// (docs/decisions/command-line.md, "Start-up cost"). Linked after libgit2's
// archive in place of the library (CMakeLists.txt, libgit2_linked).
//
// Declared here with the C ABI of MIT Kerberos' gssapi.h (Debian ships no
// header without libkrb5-dev): pointers and 32-bit integers only.
#include <dlfcn.h>

#include <cstdint>
#include <mutex>

namespace {

using OM_uint32 = std::uint32_t;
constexpr OM_uint32 kFailure = 13u << 16;  // GSS_S_FAILURE: a routine error

struct OidDesc {
  OM_uint32 length;
  void* elements;
};

void* library() {
  static void* handle = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { handle = ::dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_LOCAL); });
  return handle;
}

// The library's `name`, or null when the library or the name is missing.
template <class F>
F real(const char* name) {
  void* lib = library();
  return lib ? reinterpret_cast<F>(::dlsym(lib, name)) : nullptr;
}

}  // namespace

extern "C" {

// 1.2.840.113554.1.2.1.4, the host-based service name type (RFC 2743): GSSAPI
// compares name types by their bytes, so this copy stands for the library's.
static char hostbased_bytes[] = "\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04";
static OidDesc hostbased = {10, hostbased_bytes};
OidDesc* GSS_C_NT_HOSTBASED_SERVICE = &hostbased;

// Each forwards to the library's function of the same name, or fails with
// GSS_S_FAILURE (minor status 0) when the library cannot be loaded.
#define EDITGATE_GSS_FORWARD(name, params, args)                 \
  OM_uint32 name params {                                         \
    using F = OM_uint32(*) params;                                \
    static const F f = real<F>(#name);                            \
    if (!f) {                                                     \
      if (minor) *minor = 0;                                      \
      return kFailure;                                            \
    }                                                             \
    return f args;                                                \
  }

EDITGATE_GSS_FORWARD(gss_delete_sec_context, (OM_uint32 * minor, void** context, void* output_token),
                     (minor, context, output_token))
EDITGATE_GSS_FORWARD(gss_display_status,
                     (OM_uint32 * minor, OM_uint32 status, int status_type, void* mech, OM_uint32* message_context,
                      void* status_string),
                     (minor, status, status_type, mech, message_context, status_string))
EDITGATE_GSS_FORWARD(gss_import_name, (OM_uint32 * minor, void* input_name, void* name_type, void** output_name),
                     (minor, input_name, name_type, output_name))
EDITGATE_GSS_FORWARD(gss_indicate_mechs, (OM_uint32 * minor, void** mech_set), (minor, mech_set))
EDITGATE_GSS_FORWARD(gss_init_sec_context,
                     (OM_uint32 * minor, void* credentials, void** context, void* target, void* mech,
                      OM_uint32 req_flags, OM_uint32 time_req, void* bindings, void* input_token, void** actual_mech,
                      void* output_token, OM_uint32* ret_flags, OM_uint32* time_rec),
                     (minor, credentials, context, target, mech, req_flags, time_req, bindings, input_token,
                      actual_mech, output_token, ret_flags, time_rec))
EDITGATE_GSS_FORWARD(gss_release_buffer, (OM_uint32 * minor, void* buffer), (minor, buffer))
EDITGATE_GSS_FORWARD(gss_release_name, (OM_uint32 * minor, void** name), (minor, name))
EDITGATE_GSS_FORWARD(gss_release_oid_set, (OM_uint32 * minor, void** set), (minor, set))

#undef EDITGATE_GSS_FORWARD
}
