/* int80: keyctl (refused by the native filter) through the i386 syscall
 * ABI, int 0x80: KEYCTL_GET_KEYRING_ID of the session keyring, i386
 * syscall 288.  Prints "int80:ok" or "int80:ERRNO"; a filter that checks
 * the architecture kills it with SIGSYS; a kernel without IA32 emulation
 * kills it with SIGSEGV. */
#include "attack.h"

#define I386_KEYCTL 288L
#define KEYCTL_GET_KEYRING_ID 0L
#define KEY_SPEC_SESSION_KEYRING (-3L)

int main(void)
{
	long rc;

	__asm__ volatile("int $0x80"
			 : "=a"(rc)
			 : "a"(I386_KEYCTL), "b"(KEYCTL_GET_KEYRING_ID),
			   "c"(KEY_SPEC_SESSION_KEYRING), "d"(0L)
			 : "memory");
	if (rc < 0 && rc > -4096)
		errno = (int)-rc;
	report("int80", rc < 0 && rc > -4096 ? -1 : 0);
	return 0;
}
