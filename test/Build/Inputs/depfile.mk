# Reads the rule `ksc -MD` wrote (DEPFILE) for OUT: remakes OUT (by writing
# OUT.remade) when a file it depends on is newer (depfile.test).
include $(DEPFILE)
$(OUT):
	echo remade > $(OUT).remade
