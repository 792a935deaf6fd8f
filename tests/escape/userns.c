/* userns: a nested user namespace.  Prints "unshare:X". */
#include "attack.h"
#include <sched.h>

int main(void)
{
	report("unshare", unshare(CLONE_NEWUSER));
	return 0;
}
