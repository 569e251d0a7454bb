# A CSV file that is not there.
import data
x = data.load_csv("no-such-file.csv")
print(x)
