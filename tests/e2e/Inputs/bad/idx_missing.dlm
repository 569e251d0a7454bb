# An IDX file that is not there.
import data
x = data.load_idx("no-such-file.gz")
print(x)
