/* hello: a static program, the only file of a sandbox root in t_seal.sh
 * (so that no ld.so and no library is there to help pid 1 start). */
#include <unistd.h>

int main(void)
{
	static const char msg[] = "hello from a static root\n";

	return write(1, msg, sizeof(msg) - 1) == sizeof(msg) - 1 ? 0 : 1;
}
