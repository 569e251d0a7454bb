# A CSV file with a header and no rows: [0, 3], as pandas.read_csv reads it (NumPy's loadtxt
# warns and gives a shape without the columns). Not an error: the columns are known.
import data
x = data.load_csv("header_only.csv")
print(x.shape[0], x.shape[1], sum(x, axis=0))
